import Testing
import TripsFormats

/// The PNG reader: the size from IHDR, which must come first; tEXt, iTXt, zTXt and eXIf chunks
/// and whatever follows IEND removed; every other chunk, CRC included, as sent.
@Suite struct PNGReaderTests {
    @Test func textAndExifChunksAreGoneAndEveryOtherChunkIsKeptByteForByte() throws {
        let bytes = try Fixture.bytes("text-chunks.png")
        let parts = FileParts.png(bytes)
        #expect(parts.map(\.name) == ["IHDR", "tEXt", "zTXt", "iTXt", "eXIf", "IDAT", "IEND"])
        #expect(bytes.contains(subsequence: Array("Trips fixture".utf8)))

        let cleaned = try InspectedImage(inspecting: bytes, declared: .png).bytes
        #expect(cleaned.starts(with: Build.pngSignature))
        #expect(FileParts.png(cleaned) == parts.filter { ["IHDR", "IDAT", "IEND"].contains($0.name) })
        #expect(!cleaned.contains(subsequence: Array("Exif".utf8)) && !cleaned.contains(subsequence: Array("Trips fixture".utf8)))
    }

    @Test func whatFollowsIENDIsDropped() throws {
        let file = Build.png(Build.ihdr(width: 2, height: 3), Build.chunk("IDAT", [1, 2]), Build.chunk("IEND", []))
        let image = try InspectedImage(inspecting: file + Build.chunk("tEXt", Array("GPS\0here".utf8)) + [1, 2, 3], declared: .png)
        #expect(image.bytes == file)
        #expect(image.width == 2 && image.height == 3)
    }

    @Test(
        arguments: [
            (
                Build.png(Build.chunk("IDAT", []), Build.ihdr(width: 1, height: 1), Build.chunk("IEND", [])),
                "the first chunk is IDAT, not IHDR"
            ),
            (
                Build.png(Build.chunk("IHDR", Array(repeating: 0, count: 12)), Build.chunk("IEND", [])),
                "the IHDR chunk at byte 8 is not a single 13-byte header"
            ),
            (
                Build.png(Build.ihdr(width: 1, height: 1), Build.ihdr(width: 1, height: 1), Build.chunk("IEND", [])),
                "the IHDR chunk at byte 33 is not a single 13-byte header"
            ),
            (Build.png(Build.ihdr(width: 1, height: 1), Build.chunk("IDAT", [1])), "the file ends before its IEND chunk"),
            (Build.png(Build.ihdr(width: 1, height: 1), [0, 0, 0]), "the file ends inside the chunk header at byte 33"),
            (
                Build.png(Build.ihdr(width: 1, height: 1), [0, 0, 0, 0, 0x49, 0x44, 0x41, 0x54, 0, 0]),
                "the IDAT chunk at byte 33 runs past the end of the file"
            ),
            (
                Build.png(Build.ihdr(width: 1, height: 1), [0xFF, 0xFF, 0xFF, 0xF0] + Array("IDAT".utf8) + Array(repeating: 0, count: 20)),
                "the IDAT chunk at byte 33 runs past the end of the file"
            ),
            (
                Build.png(Build.ihdr(width: 1, height: 1), Build.chunk("ID\0T", []), Build.chunk("IEND", [])),
                "the chunk type at byte 37 is not four letters"
            ),
        ] as [([UInt8], String)])
    func aMalformedFileIsRefusedSayingWhere(file: [UInt8], reason: String) {
        #expect(throws: ImageError.unreadableHeader(reason)) { try InspectedImage(inspecting: file, declared: .png) }
    }

    /// Lengths are checked against what is there, never trusted to allocate or skip.
    @Test func aChunkLengthOverTheFormatsLimitIsRefused() {
        let file = Build.png(Build.ihdr(width: 1, height: 1), [0x80, 0, 0, 0] + Array("IDAT".utf8) + [0, 0, 0, 0])
        #expect(throws: ImageError.unreadableHeader("the IDAT chunk at byte 33 runs past the end of the file")) {
            try InspectedImage(inspecting: file, declared: .png)
        }
    }
}
