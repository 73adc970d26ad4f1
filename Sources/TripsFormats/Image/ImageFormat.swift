/// The image formats a trip's photo may be stored in: the ones every browser shows.
/// The list is closed: anything else (GIF, SVG, HEIC) is refused with 415.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg, png, webp

    /// Reads the format a `Content-Type` declares; nil for any other type.
    public init?(mediaType: MediaType) {
        guard mediaType.type == "image" else { return nil }
        switch mediaType.subtype {
        case "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        default: return nil
        }
    }

    /// Reads the extension of a photo's URL (`jpg`, `png`, `webp`).
    public init?(fileExtension: some StringProtocol) {
        guard let format = Self.allCases.first(where: { $0.fileExtension == fileExtension }) else { return nil }
        self = format
    }

    public var mediaType: MediaType { MediaType(type: "image", subtype: rawValue) }

    /// The extension in a photo's URL: the one desktops and browsers expect for the type.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }
}
