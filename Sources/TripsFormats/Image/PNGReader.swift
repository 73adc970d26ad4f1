/// Reads a PNG file (https://www.w3.org/TR/png-3/#5DataRep): its size from the IHDR chunk, and a
/// copy without the chunks that carry metadata.
///
/// After the eight-byte signature come chunks: a four-byte big-endian data length (at most
/// 2^31 - 1), a four-letter type, the data, and a CRC over type and data. IHDR comes first
/// (width and height as four-byte big-endian integers, then five one-byte fields) and IEND
/// last. Kept chunks are copied with their CRC as sent: every chunk kept is whole, so its CRC
/// still holds if it held before.
///
/// Dropped: tEXt, iTXt and zTXt (text such as the author, the software, a location) and eXIf
/// (an Exif block, with its GPS position), and whatever follows IEND.
enum PNGReader {
    /// `\x89PNG\r\n\x1A\n`.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static let metadataChunkTypes = ["tEXt", "iTXt", "zTXt", "eXIf"].map { Array($0.utf8) }

    /// The largest chunk length the format allows.
    private static let maximumChunkLength = 0x7FFF_FFFF

    /// - Complexity: O(n) in the size of the file.
    static func read(_ bytes: [UInt8]) throws(ImageError) -> (width: Int, height: Int, bytes: [UInt8]) {
        guard bytes.matches(signature, at: 0) else { throw .unreadableHeader("the file does not start with the PNG signature") }
        var output = signature
        output.reserveCapacity(bytes.count)
        var size: (width: Int, height: Int)?
        var offset = signature.count
        while true {
            guard offset < bytes.count else { throw .unreadableHeader("the file ends before its IEND chunk") }
            guard let length = bytes.bigEndian(4, at: offset), bytes.hasBytes(4, at: offset + 4) else {
                throw .unreadableHeader("the file ends inside the chunk header at byte \(offset)")
            }
            let type = bytes[offset + 4..<offset + 8]
            guard type.allSatisfy(isASCIILetter) else {
                throw .unreadableHeader("the chunk type at byte \(offset + 4) is not four letters")
            }
            let name = String(decoding: type, as: UTF8.self)
            guard length <= maximumChunkLength, bytes.hasBytes(length + 4, at: offset + 8) else {
                throw .unreadableHeader("the \(name) chunk at byte \(offset) runs past the end of the file")
            }
            let end = offset + 8 + length + 4
            if name == "IHDR" {
                guard size == nil, length == 13, let width = bytes.bigEndian(4, at: offset + 8),
                    let height = bytes.bigEndian(4, at: offset + 12)
                else { throw .unreadableHeader("the IHDR chunk at byte \(offset) is not a single 13-byte header") }
                size = (width, height)
            } else if size == nil {
                throw .unreadableHeader("the first chunk is \(name), not IHDR")
            }
            if !metadataChunkTypes.contains(where: { type.elementsEqual($0) }) {
                output.append(contentsOf: bytes[offset..<end])
            }
            offset = end
            if name == "IEND", let size {
                return (size.width, size.height, output)
            }
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
