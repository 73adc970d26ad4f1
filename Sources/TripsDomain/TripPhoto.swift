import TripsFormats

/// A trip's photo as the list keeps it: which bytes (their SHA-256), in which format and of
/// what size. The bytes themselves live in the store, content-addressed by `digest`, so two
/// trips with the same photo share them.
///
///     {"url":"/photos/9f86d0….jpg","type":"image/jpeg","width":1200,"height":800,"bytes":183442}
public struct TripPhoto: Sendable, Hashable {
    /// The parts, behind one reference: every trip holds a photo or none, and a list of a
    /// million trips keeps 8 bytes per trip for it rather than 48.
    private final class Parts: Sendable {
        let digest: String
        let format: ImageFormat
        let width: Int
        let height: Int
        let byteCount: Int

        init(digest: String, format: ImageFormat, width: Int, height: Int, byteCount: Int) {
            self.digest = digest
            self.format = format
            self.width = width
            self.height = height
            self.byteCount = byteCount
        }
    }

    private let parts: Parts

    /// The SHA-256 of the stored bytes: 64 lowercase hexadecimal digits.
    public var digest: String { parts.digest }
    public var format: ImageFormat { parts.format }
    /// In pixels, as the image's own header says.
    public var width: Int { parts.width }
    public var height: Int { parts.height }
    /// The stored bytes' length.
    public var byteCount: Int { parts.byteCount }

    /// A photo, when every part is well formed: a digest of 64 lowercase hexadecimal digits
    /// (it names a file, so nothing else may pass), sides and length above zero, and each at
    /// most `Int32.max`, as an image header and `--max-photo-bytes` allow: a photo read from
    /// storage claiming more would make the list's sums overflow.
    public init?(digest: String, format: ImageFormat, width: Int, height: Int, byteCount: Int) {
        let range = 1...Int(Int32.max)
        guard Self.isDigest(digest), range.contains(width), range.contains(height), range.contains(byteCount) else { return nil }
        parts = Parts(digest: digest, format: format, width: width, height: height, byteCount: byteCount)
    }

    public static func == (lhs: TripPhoto, rhs: TripPhoto) -> Bool {
        lhs.parts === rhs.parts
            || (lhs.digest == rhs.digest && lhs.format == rhs.format && lhs.width == rhs.width && lhs.height == rhs.height
                && lhs.byteCount == rhs.byteCount)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
        hasher.combine(format)
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(byteCount)
    }

    /// Where the bytes are served: `/photos/<digest>.<ext>`.
    public var url: String { Self.urlPrefix + digest + "." + format.fileExtension }

    /// Why a draft may not carry a photo: a new trip gets one by a request of its own.
    static let setOnlyByItsRequest = "is set with PUT /trips/{id}/photo once the trip exists; leave it out"
    /// Why a replaced trip's JSON may carry only the photo it has.
    static let readOnlyRule =
        "is read-only: send the trip's photo as its JSON shows it, or leave it out (PUT /trips/{id}/photo sets it, DELETE clears it)"

    /// What every photo's URL starts with.
    public static let urlPrefix = "/photos/"

    /// Whether `text` is a SHA-256 in lowercase hexadecimal, as a photo's digest is written.
    public static func isDigest(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The digest and format a photo URL names (`/photos/<digest>.<ext>`); nil for any other path.
    public static func parseURL(_ path: some StringProtocol) -> (digest: String, format: ImageFormat)? {
        guard path.hasPrefix(urlPrefix) else { return nil }
        let name = path.dropFirst(urlPrefix.count)
        guard let dot = name.firstIndex(of: "."), isDigest(name[..<dot]),
            let format = ImageFormat(fileExtension: name[name.index(after: dot)...])
        else { return nil }
        return (String(name[..<dot]), format)
    }
}
