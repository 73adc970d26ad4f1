import TripsFormats

/// A trip's photo as the list keeps it: which bytes (their SHA-256), in which format and of
/// what size. The bytes themselves live in the store, content-addressed by `digest`, so two
/// trips with the same photo share them.
///
///     {"url":"/photos/9f86d0….jpg","type":"image/jpeg","width":1200,"height":800,"bytes":183442}
public struct TripPhoto: Sendable, Hashable {
    /// The SHA-256 of the stored bytes: 64 lowercase hexadecimal digits.
    public let digest: String
    public let format: ImageFormat
    /// In pixels, as the image's own header says.
    public let width: Int
    public let height: Int
    /// The stored bytes' length.
    public let byteCount: Int

    /// A photo, when every part is well formed: a digest of 64 lowercase hexadecimal digits
    /// (it names a file, so nothing else may pass), sides and length above zero.
    public init?(digest: String, format: ImageFormat, width: Int, height: Int, byteCount: Int) {
        guard Self.isDigest(digest), width > 0, height > 0, byteCount > 0 else { return nil }
        self.digest = digest
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
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
