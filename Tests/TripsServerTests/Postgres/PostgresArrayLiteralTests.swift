import Testing
@testable import TripsPostgres
@testable import TripsServer

@Suite struct PostgresArrayLiteralTests {
    @Test func everyElementIsQuotedAndEscaped() {
        #expect(
            PostgresArrayLiteral.encode(["a", "b \"c\"", nil, "", #"back\slash"#, "{,}"]) == #"{"a","b \"c\"",NULL,"","back\\slash","{,}"}"#
        )
        #expect(PostgresArrayLiteral.encode([String?]()) == "{}")
        // Characters of several bytes next to escapes, and escapes at either end.
        #expect(PostgresArrayLiteral.encode([#""Évora"✓\"#, #"日本\"#]) == #"{"\"Évora\"✓\\","日本\\"}"#)
        // Escapes one after another, and a whole element of them.
        #expect(PostgresArrayLiteral.encode([#"a""\\b"#, #"""#]) == #"{"a\"\"\\\\b","\""}"#)
        #expect(PostgresArrayLiteral.encode([3, -1, 0]) == "{3,-1,0}")
        #expect(PostgresArrayLiteral.encode([Int]()) == "{}")
        #expect(PostgresArrayLiteral.encode([Int64.min, Int64.max, 10]) == "{-9223372036854775808,9223372036854775807,10}")
        #expect(PostgresArrayLiteral.encode([UInt64.max, 0, 65_536]) == "{18446744073709551615,0,65536}")
    }
}
