import Testing
import TripsFormats

/// The WebP reader: the size from the first chunk (VP8X's canvas, or the VP8 or VP8L frame
/// header); EXIF and XMP chunks removed, their VP8X flags cleared, the RIFF size written again;
/// every other chunk as sent.
@Suite struct WebPReaderTests {
    @Test func exifAndXMPAreGoneWithTheirFlagsAndTheRIFFSizeFits() throws {
        let bytes = try Fixture.bytes("lossy-exif-xmp.webp")
        let parts = FileParts.webp(bytes)
        #expect(parts.map(\.name) == ["VP8X", "VP8 ", "EXIF", "XMP "])
        #expect(parts[0].bytes[8] == 0x0C, "the EXIF and XMP flags are set")

        let cleaned = try InspectedImage(inspecting: bytes, declared: .webp).bytes
        let cleanedParts = FileParts.webp(cleaned)
        #expect(cleanedParts.map(\.name) == ["VP8X", "VP8 "])
        #expect(cleanedParts[0].bytes[8] == 0)
        #expect(cleanedParts[0].bytes[9...] == parts[0].bytes[9...], "the canvas size is kept")
        #expect(cleanedParts[1] == parts[1], "the image data is kept byte for byte")
        #expect(Self.riffSize(cleaned) == cleaned.count - 8)
        #expect(!cleaned.contains(subsequence: Array("GPSLatitude".utf8)) && !cleaned.contains(subsequence: Array("Fixture Phone".utf8)))
    }

    @Test func theICCProfileAndItsFlagStay() throws {
        let bytes = try Fixture.bytes("lossless-exif-icc.webp")
        let parts = FileParts.webp(bytes)
        #expect(parts.map(\.name) == ["VP8X", "ICCP", "VP8L", "EXIF"])
        #expect(parts[0].bytes[8] == 0x28, "ICC and EXIF flags")

        let cleaned = try InspectedImage(inspecting: bytes, declared: .webp).bytes
        let cleanedParts = FileParts.webp(cleaned)
        #expect(cleanedParts.map(\.name) == ["VP8X", "ICCP", "VP8L"])
        #expect(cleanedParts[0].bytes[8] == 0x20)
        #expect(cleanedParts[1...] == parts[1...2])
        #expect(Self.riffSize(cleaned) == cleaned.count - 8)
    }

    /// A chunk of odd size is followed by a padding byte: the walk steps over it, and a removed
    /// chunk goes with its padding.
    @Test func paddingAfterAnOddSizedChunkIsRespected() throws {
        let vp8x = Build.riffChunk("VP8X", [0x0C, 0, 0, 0, 4, 0, 0, 2, 0, 0])
        let image = Build.vp8l(width: 5, height: 3)
        let odd = Build.riffChunk("ABCD", [1, 2, 3])
        let file = Build.webp(vp8x, odd, Build.riffChunk("EXIF", [9, 9, 9]), image, Build.riffChunk("XMP ", [7]))
        let cleaned = try InspectedImage(inspecting: file, declared: .webp)
        #expect(cleaned.width == 5 && cleaned.height == 3, "the canvas, 4 + 1 by 2 + 1")
        #expect(cleaned.bytes == Build.webp(Build.riffChunk("VP8X", [0, 0, 0, 0, 4, 0, 0, 2, 0, 0]), odd, image))
    }

    @Test func whatFollowsTheRIFFDataIsDropped() throws {
        let file = Build.webp(Build.vp8l(width: 2, height: 2))
        #expect(try InspectedImage(inspecting: file + Array("EXIF junk".utf8), declared: .webp).bytes == file)
    }

    @Test func aLossyFramesSizeIsFourteenBitsWithTheScaleBitsIgnored() throws {
        let frame: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x21, 0xC0, 0x11, 0x40]
        let image = try InspectedImage(inspecting: Build.webp(Build.riffChunk("VP8 ", frame)), declared: .webp)
        #expect(image.width == 33 && image.height == 17)
    }

    @Test(
        arguments: [
            (
                Array("RIFF".utf8) + [200, 0, 0, 0] + Array("WEBP".utf8) + Build.vp8l(width: 1, height: 1),
                "the RIFF header says 208 bytes but the file has 26"
            ),
            (Array("RIFF".utf8) + [2, 0, 0, 0] + Array("WEBP".utf8), "the RIFF header says 10 bytes but the file has 12"),
            (Build.webp(), "the RIFF data holds no chunk"),
            (Build.webp([0x56, 0x50, 0x38]), "the chunk header at byte 12 runs past the end of the RIFF data"),
            (Build.webp(Array("VP8L".utf8) + [9, 0, 0, 0, 0x2F, 0, 0, 0, 0]), "the chunk at byte 12 runs past the end of the RIFF data"),
            (Build.webp(Array("VP8L".utf8) + [5, 0, 0, 0, 0x2F, 0, 0, 0, 0]), "the chunk at byte 12 runs past the end of the RIFF data"),
            (Build.webp(Build.riffChunk("VP8X", Array(repeating: 0, count: 9))), "the VP8X chunk is shorter than 10 bytes"),
            (
                Build.webp(Build.riffChunk("VP8 ", [0x11, 0x02, 0x00, 0x9D, 0x01, 0x2A, 1, 0, 1, 0])),
                "the VP8 chunk does not start with a key frame header"
            ),
            (
                Build.webp(Build.riffChunk("VP8 ", [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2B, 1, 0, 1, 0])),
                "the VP8 chunk does not start with a key frame header"
            ),
            (
                Build.webp(Build.riffChunk("VP8 ", [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 1, 0, 1])),
                "the VP8 chunk does not start with a key frame header"
            ),
            (Build.webp(Build.riffChunk("VP8L", [0x2E, 0, 0, 0, 0])), "the VP8L chunk does not start with a lossless image header"),
            (Build.webp(Build.riffChunk("VP8L", [0x2F, 0, 0, 0, 0x20])), "the VP8L chunk does not start with a lossless image header"),
            (Build.webp(Build.riffChunk("ALPH", [0]), Build.vp8l(width: 1, height: 1)), "the first chunk is not VP8, VP8L or VP8X"),
        ] as [([UInt8], String)])
    func aMalformedFileIsRefusedSayingWhere(file: [UInt8], reason: String) {
        #expect(throws: ImageError.unreadableHeader(reason)) { try InspectedImage(inspecting: file, declared: .webp) }
    }

    private static func riffSize(_ bytes: [UInt8]) -> Int {
        bytes[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
