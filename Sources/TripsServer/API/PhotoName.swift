import TripsFormats

/// The last segment of a photo's URL, `<sha256>.<ext>`: the digest of the stored bytes in
/// 64 lowercase hex digits and the extension of their format. Anything else names no photo.
struct PhotoName: Sendable, Hashable {
    let digest: String
    let format: ImageFormat

    /// Reads a path segment; nil unless it is exactly a digest, a dot and a known extension.
    init?(_ segment: UnsafeRawBufferPointer) {
        let digestLength = 64
        guard segment.count > digestLength + 1, segment[digestLength] == UInt8(ascii: ".") else { return nil }
        for byte in segment[..<digestLength] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            else { return nil }
        }
        let fileExtension = String(decoding: segment[(digestLength + 1)...], as: UTF8.self)
        guard let format = ImageFormat(fileExtension: fileExtension) else { return nil }
        digest = String(decoding: segment[..<digestLength], as: UTF8.self)
        self.format = format
    }
}
