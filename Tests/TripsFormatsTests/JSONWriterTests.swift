import Testing
import TripsFormats

/// The writer copies into room it keeps ahead of what is written: every kind of append must
/// write exactly its bytes, however small the room it starts with.
@Suite struct JSONWriterTests {
    private func text(_ writer: JSONWriter) -> String { String(decoding: writer.bytes, as: UTF8.self) }

    @Test func everyControlCharacterIsEscapedAndNothingElse() {
        var writer = JSONWriter(reservingCapacity: 1)
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        writer.appendString(controls + "\"\\/é😀")
        let short: [UInt8: String] = [0x09: #"\t"#, 0x0A: #"\n"#, 0x0D: #"\r"#]
        let escaped = (0..<0x20).map { short[UInt8($0)] ?? "\\u00" + (($0 < 0x10 ? "0" : "") + String($0, radix: 16)) }.joined()
        #expect(text(writer) == "\"" + escaped + #"\"\\/é😀""#)
    }

    @Test func stringsLongerThanTheRoomAndEmptyOnesAreWrittenWhole() {
        var writer = JSONWriter(reservingCapacity: 1)
        let long = String(repeating: "Zürich ", count: 1_000)
        writer.appendString(long)
        writer.appendString("")
        writer.appendRaw(",")
        writer.appendRaw(Array("[]".utf8))
        writer.appendRaw("")
        #expect(text(writer) == "\"" + long + "\"\"\",[]")
    }

    @Test(arguments: [0, 7, 10, 99, 1_000_000, -1, -42, Int.max, Int.min])
    func integersAreWrittenAsSwiftSpellsThem(value: Int) {
        var writer = JSONWriter(reservingCapacity: 1)
        writer.appendInteger(value)
        writer.appendInteger(UInt64(value.magnitude))
        #expect(text(writer) == String(value) + String(value.magnitude))
    }

    @Test func digitsArePaddedToTheirWidth() {
        var writer = JSONWriter(reservingCapacity: 1)
        writer.appendDigits(7, width: 4)
        writer.appendRaw(" ")
        writer.appendDigits(12_345, width: 2)
        writer.appendRaw(" ")
        writer.appendDigits(-5, width: 3)
        writer.appendRaw(" ")
        writer.appendDigits(0, width: 2)
        #expect(text(writer) == "0007 12345 -005 00")
    }

    @Test func aCopyOfAWriterGoesOnByItself() {
        var first = JSONWriter()
        first.appendRaw("[1")
        var second = first
        first.appendRaw("]")
        second.appendRaw(",2]")
        #expect(text(first) == "[1]" && text(second) == "[1,2]")
    }
}
