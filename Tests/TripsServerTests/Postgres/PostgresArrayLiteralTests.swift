import Testing
@testable import TripsPostgres
@testable import TripsServer

@Suite struct PostgresArrayLiteralTests {
    @Test func everyElementIsQuotedAndEscaped() {
        #expect(
            PostgresArrayLiteral.encode(["a", "b \"c\"", nil, "", #"back\slash"#, "{,}"]) == #"{"a","b \"c\"",NULL,"","back\\slash","{,}"}"#
        )
        #expect(PostgresArrayLiteral.encode([String?]()) == "{}")
        #expect(PostgresArrayLiteral.encode([3, -1, 0]) == "{3,-1,0}")
    }
}
