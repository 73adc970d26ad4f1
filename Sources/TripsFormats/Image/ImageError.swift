/// Why the bytes sent as a photo were refused: one case per problem, each with a sentence fit
/// for a problem document's `detail`. The API answers `formatMismatch` with 415 and the others
/// with 422.
package enum ImageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file's signature is not that of the declared format; `actual` is nil when it is
    /// none of the three formats.
    case formatMismatch(declared: ImageFormat, actual: ImageFormat?)
    /// The file does not follow its format: a header that cannot be read, a length that runs
    /// past the end, a file cut short. The reason says where.
    case unreadableHeader(String)
    /// The width or height read from the header is zero or over the limit.
    case dimensionsOutOfRange(width: Int, height: Int, limit: Int)

    package var description: String {
        switch self {
        case .formatMismatch(let declared, let actual?):
            "The body was declared as \(declared.mediaType) but is \(actual.mediaType)."
        case .formatMismatch(let declared, nil):
            "The body was declared as \(declared.mediaType) but is not a JPEG, PNG or WebP image."
        case .unreadableHeader(let reason):
            "The image cannot be read: \(reason)."
        case .dimensionsOutOfRange(let width, let height, let limit):
            "The image is \(width) x \(height) pixels; each side must be from 1 to \(limit)."
        }
    }
}
