import Testing

@testable import TripsHTTP

/// The word-at-a-time scans must refuse exactly the bytes the byte-by-byte rules refuse, at
/// every offset of every length (a word's end, the overlapping last word, fewer than eight).
@Suite struct ByteRunTests {
    static func isRefusedInFieldValue(_ byte: UInt8) -> Bool { byte < 0x20 && byte != ASCII.tab || byte == 0x7F }
    static func isRefusedInTarget(_ byte: UInt8) -> Bool { byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "#") }

    /// `length` clean bytes with `byte` at `offset`.
    static func line(length: Int, _ byte: UInt8, at offset: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        bytes[offset] = byte
        return bytes
    }

    /// Lengths below a word, at a word, between words and at two words.
    @Test(arguments: [1, 7, 8, 9, 13, 16, 17, 24])
    func everyByteAtEveryOffsetIsJudgedAsTheByteRuleJudgesIt(length: Int) {
        var mismatches: [String] = []
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        bytes.withUnsafeMutableBytes { buffer in
            let bytes = UnsafeRawBufferPointer(buffer)
            for offset in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    buffer[offset] = byte
                    if ByteRun.firstRefusedInFieldValue(bytes) != (Self.isRefusedInFieldValue(byte) ? offset : nil) {
                        mismatches.append("value: \(byte) at \(offset)")
                    }
                    if ByteRun.firstRefusedInTarget(bytes) != (Self.isRefusedInTarget(byte) ? offset : nil) {
                        mismatches.append("target: \(byte) at \(offset)")
                    }
                }
                buffer[offset] = UInt8(ascii: "a")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test func theFirstOfSeveralRefusedBytesIsNamed() {
        for (first, second) in [(0, 1), (3, 12), (9, 10), (7, 8), (12, 15)] {
            var bytes = Self.line(length: 16, 0x7F, at: second)
            bytes[first] = 0x01
            #expect(bytes.withUnsafeBytes { ByteRun.firstRefusedInFieldValue($0) } == first)
            #expect(bytes.withUnsafeBytes { ByteRun.firstRefusedInTarget($0) } == first)
        }
    }

    @Test func tabsAndObsTextPassInAValueWhileATargetRefusesThem() {
        let bytes: [UInt8] = Array("text/html,\t\u{e9}*/*;q=0.8".utf8)
        #expect(bytes.withUnsafeBytes { ByteRun.firstRefusedInFieldValue($0) } == nil)
        #expect(bytes.withUnsafeBytes { ByteRun.firstRefusedInTarget($0) } == 10)
        #expect([UInt8]().withUnsafeBytes { ByteRun.firstRefusedInFieldValue($0) } == nil)
    }
}
