import Foundation
import Testing

@testable import TripsPostgres

/// Parameters as Bind carries them: each value's count of bytes (-1: NULL) and bytes, and array
/// literals written in place.
@Suite struct PostgresParametersTests {
    /// The values back from `encoded`, nil for NULL.
    static func values(_ parameters: PostgresParameters) -> [String?] {
        var values: [String?] = []
        var offset = 0
        let bytes = parameters.encoded
        while offset < bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            offset += 4
            guard length != UInt32.max else {
                values.append(nil)
                continue
            }
            values.append(String(decoding: bytes[offset..<(offset + Int(length))], as: UTF8.self))
            offset += Int(length)
        }
        return values
    }

    static func literal(_ write: (inout PostgresParameters) -> Void) -> String? {
        var parameters = PostgresParameters()
        write(&parameters)
        #expect(parameters.count == 1)
        return values(parameters).first ?? nil
    }

    @Test func valuesAreCountedAndNullIsMinusOne() {
        let parameters: PostgresParameters = ["a'b", nil, "", "Évora ✓"]
        #expect(parameters.count == 4)
        #expect(Self.values(parameters) == ["a'b", nil, "", "Évora ✓"])
        #expect(Array(parameters.encoded[7..<11]) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(parameters.refusal == nil)
    }

    @Test func everyElementOfAnArrayIsQuotedAndEscaped() {
        #expect(
            Self.literal { $0.appendArray(["a", "b \"c\"", nil, "", #"back\slash"#, "{,}"]) }
                == #"{"a","b \"c\"",NULL,"","back\\slash","{,}"}"#
        )
        #expect(Self.literal { $0.appendArray([String?]()) } == "{}")
        // Characters of several bytes next to escapes, and escapes at either end.
        #expect(Self.literal { $0.appendArray([#""Évora"✓\"#, #"日本\"#]) } == #"{"\"Évora\"✓\\","日本\\"}"#)
        // Escapes one after another, and a whole element of them.
        #expect(Self.literal { $0.appendArray([#"a""\\b"#, #"""#]) } == #"{"a\"\"\\\\b","\""}"#)
        #expect(Self.literal { $0.appendArray([3, -1, 0]) } == "{3,-1,0}")
        #expect(Self.literal { $0.appendArray([Int]()) } == "{}")
        #expect(Self.literal { $0.appendArray([Int64.min, Int64.max, 10]) } == "{-9223372036854775808,9223372036854775807,10}")
        #expect(Self.literal { $0.appendArray([UInt64.max, 0, 65_536]) } == "{18446744073709551615,0,65536}")
        #expect(Self.literal { $0.appendArray(count: 3) { [Int.min, 7, Int.max][$0] } } == "{\(Int.min),7,\(Int.max)}")
    }

    /// Texts given as their UTF-8 bytes go as a binary `text[]`, unescaped: `array_send`'s
    /// header (one dimension, no NULLs, type 25, the count, from 1), then each text's count and
    /// bytes. Its format is the only binary one; the values around it stay text.
    @Test func textsGivenAsBytesGoAsABinaryTextArray() {
        let texts = [Array(#"{"a":"\"q\""}"#.utf8), Array("日本".utf8), []]
        var parameters: PostgresParameters = ["before"]
        parameters.appendArray(count: 3, utf8: { texts[$0] })
        parameters.append("after")
        #expect(parameters.count == 3)
        #expect(parameters.formats == [0, 1, 0])
        #expect(parameters.refusal == nil)
        let int32 = { (value: Int32) in withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        var array = [1, 0, 25, 3, 1].flatMap(int32)
        for text in texts { array += int32(Int32(text.count)) + text }
        let value = int32(Int32(array.count)) + array
        #expect(Array(parameters.encoded.dropFirst(4 + 6).prefix(value.count)) == value)
        #expect(Array(parameters.encoded.suffix(9)) == int32(5) + Array("after".utf8))

        var empty = PostgresParameters()
        empty.appendArray(count: 0, utf8: { _ in [] })
        #expect(empty.encoded == int32(12) + [0, 0, 25].flatMap(int32), "no dimension, as array_send writes an empty array")
        #expect(empty.formats == [1])
        // Zeros of the header are not NULs; one in a text is, which Bind refuses.
        #expect(empty.refusal == nil)
        var withNUL: PostgresParameters = ["ok"]
        withNUL.appendArray(count: 2, utf8: { [Array("fine".utf8), [0x61, 0]][$0] })
        #expect(withNUL.refusal == .nulCharacter(in: .parameter(1)))
    }

    @Test func aLiteralLargerThanItsFirstRoomGrowsAndLosesNothing() {
        // Every byte escaped, in elements far longer than the room a literal starts with.
        let elements = (0..<300).map { String(repeating: #"""#, count: $0) + "\($0)" }
        var parameters: PostgresParameters = ["before"]
        parameters.appendArray(elements)
        parameters.append("after")
        let expected = "{" + elements.map { "\"" + $0.replacingOccurrences(of: "\"", with: #"\""#) + "\"" }.joined(separator: ",") + "}"
        #expect(Self.values(parameters) == ["before", expected, "after"])
    }

    @Test func theFirstValueWithANULIsWhatBindRefuses() {
        var parameters: PostgresParameters = ["ok", nil]
        parameters.appendArray(["fine", "bad\0"])
        parameters.append("worse\0")
        #expect(parameters.refusal == .nulCharacter(in: .parameter(2)))
        #expect(parameters.count == 4)
    }
}
