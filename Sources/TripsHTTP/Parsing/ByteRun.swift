/// The checks every byte of a request head goes through, eight bytes at a time (SWAR: in one
/// 64-bit register): a field value or a request target is almost always clean, so a word is
/// let through with a few arithmetic steps instead of eight compares and branches, and only
/// a word that may hold a byte to refuse (or a tab, which a value allows) is looked at byte
/// by byte.
///
/// Each word test is exact as a yes or no ("does some byte of the word ..."), which is all
/// that is asked of it: https://graphics.stanford.edu/~seander/bithacks.html#HasLessInWord
enum ByteRun {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether some byte of `word` is below `limit` (at most 128).
    @inline(__always)
    private static func hasByte(below limit: UInt8, in word: UInt64) -> Bool {
        (word &- ones &* UInt64(limit)) & ~word & highBits != 0
    }

    /// Whether some byte of `word` is `byte`.
    @inline(__always)
    private static func hasByte(_ byte: UInt8, in word: UInt64) -> Bool {
        hasByte(below: 1, in: word ^ (ones &* UInt64(byte)))
    }

    /// Whether some byte of `word` is DEL (0x7F) or above: `+ 1` carries DEL into the high
    /// bit, which the bytes above have already (a carry out of 0xFF only follows one of those).
    @inline(__always)
    private static func hasByte(atLeastDEL word: UInt64) -> Bool {
        (word | (word &+ ones)) & highBits != 0
    }

    /// The offset in `bytes` of the first byte for which `isRefused` holds, or nil; `mayHold`
    /// says of a word whether it could hold one (never false for a word that does). The last
    /// word ends at the last byte, overlapping the one before it, so no byte is left over for
    /// a loop of its own; fewer than eight bytes are looked at one by one.
    @inline(__always)
    private static func firstRefused(
        in bytes: UnsafeRawBufferPointer, mayHold: (UInt64) -> Bool, isRefused: (UInt8) -> Bool
    ) -> Int? {
        guard bytes.count >= 8 else { return bytes.firstIndex(where: isRefused) }
        let lastWord = bytes.count - 8
        var index = 0
        while true {
            let start = min(index, lastWord)
            if mayHold(bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self)) {
                for offset in start..<(start + 8) where isRefused(bytes[offset]) { return offset }
            }
            if start == lastWord { return nil }
            index += 8
        }
    }

    /// The first byte a field value may not hold: a control byte other than HTAB, or DEL
    /// (field-vchar, SP and HTAB, and obs-text, pass).
    ///
    /// https://www.rfc-editor.org/rfc/rfc9110#name-field-values
    static func firstRefusedInFieldValue(_ bytes: UnsafeRawBufferPointer) -> Int? {
        firstRefused(
            in: bytes, mayHold: { hasByte(below: 0x20, in: $0) || hasByte(0x7F, in: $0) },
            isRefused: { $0 < 0x20 && $0 != ASCII.tab || $0 == 0x7F })
    }

    /// The first byte a request target may not hold: a control byte, SP, DEL or above, or `#`
    /// (the fragment is the client's own).
    ///
    /// https://www.rfc-editor.org/rfc/rfc9112#name-request-target
    static func firstRefusedInTarget(_ bytes: UnsafeRawBufferPointer) -> Int? {
        firstRefused(
            in: bytes, mayHold: { hasByte(below: 0x21, in: $0) || hasByte(atLeastDEL: $0) || hasByte(UInt8(ascii: "#"), in: $0) },
            isRefused: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "#") })
    }
}
