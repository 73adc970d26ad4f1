import Testing

import TripsFormats

@Suite struct UTF8TextTests {
    @Test func aByteWithItsHighBitSetIsFoundWhereverItIs() {
        for count in 0...19 {
            let ascii = [UInt8](repeating: UInt8(ascii: "a"), count: count)
            #expect(ascii.withUnsafeBytes { UTF8Text.isASCII($0) }, "\(count) ASCII bytes")
            for position in 0..<count {
                var bytes = ascii
                bytes[position] = 0x80
                #expect(!bytes.withUnsafeBytes { UTF8Text.isASCII($0) }, "0x80 at \(position) of \(count)")
            }
        }
    }

    @Test func textIsMadeFromUTF8AndRefusedOtherwise() {
        func string(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBytes { UTF8Text.string($0) } }
        #expect(string(Array("Lisbon, Portugal".utf8)) == "Lisbon, Portugal")
        #expect(string(Array("Zürich, 東京 🇨🇭".utf8)) == "Zürich, 東京 🇨🇭")
        #expect(string([]) == "")
        #expect(string(Array("Z".utf8) + [0xFF]) == nil)
        #expect(string([0xC3]) == nil)  // a sequence cut short
        #expect(string([0xED, 0xA0, 0x80]) == nil)  // a surrogate's code point
        for (bytes, isUTF8) in [(Array("Zürich".utf8), true), ([0x5A, 0xFF], false), ([0xC3], false), ([], true)] {
            #expect(bytes.withUnsafeBytes { UTF8Text.isUTF8($0) } == isUTF8, "\(bytes)")
        }
        // What the caller already knows of ASCII is taken as it is: no byte is read again.
        #expect([0xFF].withUnsafeBytes { UTF8Text.isUTF8($0, isASCII: true) })
    }
}
