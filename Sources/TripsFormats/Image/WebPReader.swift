/// Reads a WebP file (RFC 9649, https://www.rfc-editor.org/rfc/rfc9649): its size from the
/// first chunk, and a copy without the chunks that carry metadata.
///
/// The file is a RIFF container: `RIFF`, a four-byte little-endian size of what follows (from
/// `WEBP` to the end), `WEBP`, then chunks: a four-byte tag, a four-byte little-endian payload
/// size, the payload, and a padding byte when the size is odd. The first chunk is the image
/// (`VP8 ` lossy, `VP8L` lossless) or, in the extended format, `VP8X` with the canvas size and
/// flags saying which optional chunks follow.
///
/// Dropped: `EXIF` (with its GPS position) and `XMP ` chunks, their flags in `VP8X`, and
/// whatever follows the RIFF data. The RIFF size is written again for what is left.
enum WebPReader {
    /// The VP8X flags of the chunks this reader drops: EXIF (bit 3) and XMP (bit 2).
    private static let metadataFlags: UInt8 = 0x08 | 0x04

    private static let metadataChunkTags = ["EXIF", "XMP "].map { Array($0.utf8) }

    /// - Complexity: O(n) in the size of the file.
    static func read(_ bytes: [UInt8]) throws(ImageError) -> (width: Int, height: Int, bytes: [UInt8]) {
        guard bytes.matches("RIFF".utf8, at: 0), let riffSize = bytes.littleEndian(4, at: 4), bytes.matches("WEBP".utf8, at: 8) else {
            throw .unreadableHeader("the file does not start with a RIFF header of form WEBP")
        }
        guard riffSize >= 4, bytes.hasBytes(riffSize, at: 8) else {
            throw .unreadableHeader("the RIFF header says \(riffSize + 8) bytes but the file has \(bytes.count)")
        }
        let riffEnd = 8 + riffSize
        var output = Array(bytes[0..<12])
        output.reserveCapacity(riffEnd)
        var size: (width: Int, height: Int)?
        var flagsOffset: Int?
        var offset = 12
        while offset < riffEnd {
            guard riffEnd - offset >= 8, let length = bytes.littleEndian(4, at: offset + 4) else {
                throw .unreadableHeader("the chunk header at byte \(offset) runs past the end of the RIFF data")
            }
            let tag = bytes[offset..<offset + 4]
            let paddedLength = length + (length & 1)
            guard paddedLength <= riffEnd - offset - 8 else {
                throw .unreadableHeader("the chunk at byte \(offset) runs past the end of the RIFF data")
            }
            let payload = offset + 8
            if offset == 12 {
                size = try imageSize(tag: tag, bytes: bytes, payload: payload, length: length)
                if tag.elementsEqual("VP8X".utf8) { flagsOffset = output.count + 8 }
            }
            let end = payload + paddedLength
            if !metadataChunkTags.contains(where: { tag.elementsEqual($0) }) {
                output.append(contentsOf: bytes[offset..<end])
            }
            offset = end
        }
        guard let size else { throw .unreadableHeader("the RIFF data holds no chunk") }
        if let flagsOffset { output[flagsOffset] &= ~metadataFlags }
        let newRIFFSize = UInt32(truncatingIfNeeded: output.count - 8)
        for index in 0..<4 { output[4 + index] = UInt8(truncatingIfNeeded: newRIFFSize >> (8 * index)) }
        return (size.width, size.height, output)
    }

    /// The size the first chunk gives: the canvas of `VP8X`, or the frame of `VP8 ` or `VP8L`.
    private static func imageSize(tag: ArraySlice<UInt8>, bytes: [UInt8], payload: Int, length: Int) throws(ImageError) -> (
        width: Int, height: Int
    ) {
        if tag.elementsEqual("VP8X".utf8) {
            // Flags (1 byte), reserved (3), canvas width - 1 (3), canvas height - 1 (3).
            guard length >= 10, let widthMinusOne = bytes.littleEndian(3, at: payload + 4),
                let heightMinusOne = bytes.littleEndian(3, at: payload + 7)
            else { throw .unreadableHeader("the VP8X chunk is shorter than 10 bytes") }
            return (widthMinusOne + 1, heightMinusOne + 1)
        }
        if tag.elementsEqual("VP8 ".utf8) {
            // RFC 6386 section 9.1: a three-byte frame tag whose lowest bit is 0 for a key frame,
            // the start code 9D 01 2A, then width and height as 14 bits each with 2 bits of scale.
            guard length >= 10, bytes[payload] & 1 == 0, bytes.matches([0x9D, 0x01, 0x2A], at: payload + 3),
                let width = bytes.littleEndian(2, at: payload + 6), let height = bytes.littleEndian(2, at: payload + 8)
            else { throw .unreadableHeader("the VP8 chunk does not start with a key frame header") }
            return (width & 0x3FFF, height & 0x3FFF)
        }
        if tag.elementsEqual("VP8L".utf8) {
            // The signature 2F, then 32 bits: width - 1 (14), height - 1 (14), alpha (1), version (3), which must be 0.
            guard length >= 5, bytes[payload] == 0x2F, let fields = bytes.littleEndian(4, at: payload + 1), fields >> 29 == 0 else {
                throw .unreadableHeader("the VP8L chunk does not start with a lossless image header")
            }
            return ((fields & 0x3FFF) + 1, (fields >> 14 & 0x3FFF) + 1)
        }
        throw .unreadableHeader("the first chunk is not VP8, VP8L or VP8X")
    }
}
