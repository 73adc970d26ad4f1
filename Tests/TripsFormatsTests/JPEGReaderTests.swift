import Testing
import TripsFormats

/// The JPEG reader: the size from the first frame header, and every APP1-APP15 segment (an ICC
/// profile aside), every comment and whatever follows end-of-image removed, wherever they are;
/// the rest, scans included, byte for byte as sent.
@Suite struct JPEGReaderTests {
    /// The Exif block of phone-gps.jpg has a GPS IFD (tag 0x8825 in IFD0) with a latitude and a
    /// longitude, an XMP packet repeats them, a comment names the fixture; none of it survives.
    @Test func aPhonePhotosGPSPositionIsGone() throws {
        let bytes = try Fixture.bytes("phone-gps.jpg")
        let exif = try #require(FileParts.jpeg(bytes).first { $0.name == "FFE1" && $0.bytes[4...].starts(with: Self.exifHeader) })
        #expect(Self.ifd0Tags(tiff: Array(exif.bytes[10...])).contains(Self.gpsIFDTag))
        #expect(bytes.contains(subsequence: Array("GPSLatitude".utf8)))

        let cleaned = try InspectedImage(inspecting: bytes, declared: .jpeg).bytes
        let names = FileParts.jpeg(cleaned).map(\.name)
        #expect(!names.contains("FFE1") && !names.contains("FFFE"))
        #expect(names.contains("FFE2"), "the ICC profile stays")
        #expect(!cleaned.contains(subsequence: Self.exifHeader))
        #expect(!cleaned.contains(subsequence: Array("GPSLatitude".utf8)))
        #expect(!cleaned.contains(subsequence: Array("Fixture Phone".utf8)))
        #expect(!cleaned.contains(subsequence: Array("Trips fixture".utf8)))
    }

    /// The reference: the original's parts less APP1-APP15 (but ICC profiles) and COM, each
    /// kept part byte for byte, so tables, frame, scans and their data decode as before.
    @Test(arguments: ["phone-gps.jpg", "progressive-gps.jpg"])
    func everythingButMetadataIsKeptByteForByte(name: String) throws {
        let bytes = try Fixture.bytes(name)
        let cleaned = try InspectedImage(inspecting: bytes, declared: .jpeg).bytes
        let expected = FileParts.jpeg(bytes).filter { part in
            let code = part.bytes[1]
            if code == 0xE2 { return part.bytes[4...].starts(with: "ICC_PROFILE\0".utf8) }
            return !(0xE1...0xEF).contains(code) && code != 0xFE
        }
        #expect(FileParts.jpeg(cleaned) == expected)
        #expect(FileParts.jpeg(cleaned).count { $0.name == "FFDA" } == (name == "progressive-gps.jpg" ? 10 : 1))
    }

    @Test func metadataBetweenScansAndAfterTheEndOfImageIsRemovedToo() throws {
        let original = try Fixture.bytes("progressive-gps.jpg")
        let parts = FileParts.jpeg(original)
        let secondScan = try #require(parts.indices.filter { parts[$0].name == "FFDA" }.dropFirst().first)
        var tampered = parts[..<secondScan].flatMap(\.bytes)
        tampered += Build.segment(0xE1, Self.exifHeader + [0x49, 0x49, 0x2A, 0]) + Build.segment(0xFE, Array("between scans".utf8))
        tampered += parts[secondScan...].flatMap(\.bytes)
        tampered += Array("a trailer such as phones append, with GPS 47.37 N".utf8)

        let expected = try InspectedImage(inspecting: original, declared: .jpeg)
        #expect(try InspectedImage(inspecting: tampered, declared: .jpeg) == expected)
    }

    @Test func onlyAnICCProfileStaysOfTheAPP2Segments() throws {
        let icc = Build.segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1, 0xAA])
        let mpf = Build.segment(0xE2, Array("MPF\0".utf8) + [0x49, 0x49, 0x2A, 0])
        let jfif = Build.segment(0xE0, Array("JFIF\0".utf8) + [1, 2, 0, 0, 1, 0, 1, 0, 0])
        let frame = Build.frameHeader(width: 3, height: 2)
        let file = Build.jpeg(jfif, icc, mpf, Build.segment(0xEF, [1]), Build.segment(0xED, [2]), frame, Build.scan)
        #expect(try InspectedImage(inspecting: file, declared: .jpeg).bytes == Build.jpeg(jfif, icc, frame, Build.scan))
    }

    /// Fill bytes before a marker and standalone markers between segments are part of the
    /// format: walked past and kept as sent.
    @Test func fillBytesAndStandaloneMarkersAreWalkedAndKept() throws {
        let frame = Build.frameHeader(width: 7, height: 5)
        let restartInData = Build.segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF, 0xD1, 0x78]
        let file = Build.jpeg([0xFF, 0xFF, 0xFF] + frame.dropFirst(), [0xFF, 0x01], restartInData, [0xFF, 0xFF])
        let image = try InspectedImage(inspecting: file, declared: .jpeg)
        #expect(image.width == 7 && image.height == 5)
        #expect(image.bytes == file)
    }

    @Test func theFirstFrameHeaderGivesTheSize() throws {
        let file = Build.jpeg(Build.frameHeader(width: 9, height: 4), Build.frameHeader(width: 20_000, height: 20_000), Build.scan)
        let image = try InspectedImage(inspecting: file, declared: .jpeg)
        #expect(image.width == 9 && image.height == 4)
    }

    @Test(
        arguments: [
            ([0xFF, 0xD8, 0xFF, 0xC0, 0x00], "the file ends inside the length of the segment at byte 2"),
            (
                Array(Build.jpeg(Build.frameHeader(width: 1, height: 1), Build.scan).dropLast(2)),
                "the file ends before its end-of-image marker"
            ),
            ([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x09, 0x45], "the segment FF E1 at byte 2 runs past the end of the file"),
            ([0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x01, 0xFF, 0xD9], "the segment FF DB at byte 2 has a length under 2"),
            (Build.jpeg(Build.scan, Build.frameHeader(width: 1, height: 1)), "the scan at byte 2 comes before any frame header"),
            (Build.jpeg(Build.frameHeader(width: 1, height: 1)), "the end-of-image marker comes before any image data"),
            (Build.jpeg(Build.segment(0xC2, [8, 0, 1, 0]), Build.scan), "the frame header at byte 2 is too short"),
            (Build.jpeg([0xFF, 0x00], Build.scan), "the marker FF 00 at byte 2 is out of place"),
            (Build.jpeg([0xFF, 0xD8], Build.scan), "the marker FF D8 at byte 2 is out of place"),
            (Build.jpeg(Build.frameHeader(width: 1, height: 1), [0x00], Build.scan), "byte 15 should start a marker but is not FF"),
            ([0xFF, 0xD8, 0xFF, 0xFF, 0xFF], "the file ends inside a marker at byte 2"),
        ] as [([UInt8], String)])
    func aMalformedFileIsRefusedSayingWhere(file: [UInt8], reason: String) {
        #expect(throws: ImageError.unreadableHeader(reason)) { try InspectedImage(inspecting: file, declared: .jpeg) }
        #expect(ImageError.unreadableHeader(reason).description == "The image cannot be read: \(reason).")
    }

    /// The segment lengths of a file of thousands of tiny segments are walked in one pass.
    @Test func manySmallSegmentsAreWalkedInOnePass() throws {
        let comments = Array(repeating: Build.segment(0xFE, []), count: 20_000).joined()
        let file = Build.jpeg(Array(comments), Build.frameHeader(width: 2, height: 2), Build.scan)
        #expect(
            try InspectedImage(inspecting: file, declared: .jpeg).bytes == Build.jpeg(Build.frameHeader(width: 2, height: 2), Build.scan))
    }

    private static let exifHeader = Array("Exif\0\0".utf8)
    private static let gpsIFDTag = 0x8825

    /// The tags of the first IFD of a TIFF structure (as in an Exif block after `Exif\0\0`).
    private static func ifd0Tags(tiff: [UInt8]) -> [Int] {
        let littleEndian = tiff.starts(with: "II".utf8)
        func integer(at offset: Int, width: Int) -> Int {
            let field = tiff[offset..<offset + width]
            return (littleEndian ? Array(field.reversed()) : Array(field)).reduce(0) { $0 << 8 | Int($1) }
        }
        let ifd = integer(at: 4, width: 4)
        return (0..<integer(at: ifd, width: 2)).map { integer(at: ifd + 2 + 12 * $0, width: 2) }
    }
}
