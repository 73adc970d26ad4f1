import TripsFormats
import TripsPlatform

/// The last segment of a photo's URL, `<sha256>.<ext>`: the digest of the stored bytes in
/// 64 lowercase hex digits and the extension of their format. Anything else names no photo.
///
/// Plain words, no string: a route match carries it by value, and matching `/trips/2` (the
/// same enum) then costs no reference counting.
struct PhotoName: Sendable, Hashable {
    /// The digest's 32 bytes, eight to a word, in order.
    private let words: (UInt64, UInt64, UInt64, UInt64)
    let format: ImageFormat

    /// Reads a path segment; nil unless it is exactly a digest, a dot and a known extension.
    init?(_ segment: UnsafeRawBufferPointer) {
        let digestLength = 64
        guard segment.count > digestLength + 1, segment[digestLength] == UInt8(ascii: ".") else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for index in 0..<digestLength {
            let byte = segment[index]
            let nibble: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt64(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
            // Sixteen digits to a word, in order; a tuple, so reading a name allocates nothing.
            switch index / 16 {
            case 0: words.0 = words.0 << 4 | nibble
            case 1: words.1 = words.1 << 4 | nibble
            case 2: words.2 = words.2 << 4 | nibble
            default: words.3 = words.3 << 4 | nibble
            }
        }
        let fileExtension = String(decoding: segment[(digestLength + 1)...], as: UTF8.self)
        guard let format = ImageFormat(fileExtension: fileExtension) else { return nil }
        self.words = words
        self.format = format
    }

    /// The digest as the store names it: 64 lowercase hex digits.
    var digest: String {
        let (a, b, c, d) = words
        return Hexadecimal.encode([a, b, c, d].flatMap { word in (0..<8).reversed().map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) } })
    }

    static func == (lhs: PhotoName, rhs: PhotoName) -> Bool {
        lhs.words == rhs.words && lhs.format == rhs.format
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
        hasher.combine(format)
    }
}
