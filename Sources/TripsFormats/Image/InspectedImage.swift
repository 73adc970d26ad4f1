/// A photo as the service keeps it: checked to be the format it was declared as, its size read
/// from its own header, and its metadata removed (a phone photo's GPS position is never served),
/// with the pixels exactly as sent.
///
///     let image = try InspectedImage(inspecting: body, declared: .jpeg)
///     // image.width, image.height; image.bytes is the file without its Exif, XMP and comments
///
/// Inspecting `bytes` again gives the same image: the cleaning is idempotent, and it never
/// makes a file longer.
package struct InspectedImage: Sendable, Hashable {
    /// The longest side a photo may have, in pixels: far beyond any screen, well short of what
    /// a small file could claim to make a viewer allocate.
    package static let defaultMaxSide = 10_000

    package let format: ImageFormat
    package let width: Int
    package let height: Int
    /// The file without its metadata: JPEG's APP1-APP15 segments (an ICC profile aside) and
    /// comments, PNG's text and eXIf chunks, WebP's EXIF and XMP chunks, and anything after the
    /// end of the image.
    package let bytes: [UInt8]

    /// Checks `bytes` against the declared format, reads the size and removes the metadata.
    ///
    /// - Throws: `ImageError.formatMismatch` when the file's signature is not that of
    ///   `declared`; `.unreadableHeader` when the file does not follow its format, including a
    ///   file cut short; `.dimensionsOutOfRange` when a side is 0 or over `maxSide`.
    /// - Complexity: O(n) in the size of the file.
    package init(inspecting bytes: [UInt8], declared: ImageFormat, maxSide: Int = defaultMaxSide) throws(ImageError) {
        let actual = ImageFormat(signatureOf: bytes)
        guard actual == declared else { throw .formatMismatch(declared: declared, actual: actual) }
        let image =
            switch declared {
            case .jpeg: try JPEGReader.read(bytes)
            case .png: try PNGReader.read(bytes)
            case .webp: try WebPReader.read(bytes)
            }
        guard image.width >= 1, image.width <= maxSide, image.height >= 1, image.height <= maxSide else {
            throw .dimensionsOutOfRange(width: image.width, height: image.height, limit: maxSide)
        }
        format = declared
        width = image.width
        height = image.height
        self.bytes = image.bytes
    }
}
