import Foundation
import TripsFormats

/// The committed image files (`Fixtures/README.md` says how they were made), the sample trips'
/// photos, and builders of small files with a chosen flaw.
enum Fixture {
    /// Every fixture with the format and size its own header gives.
    static let all: [(name: String, format: ImageFormat, width: Int, height: Int)] = [
        ("phone-gps.jpg", .jpeg, 64, 48), ("progressive-gps.jpg", .jpeg, 40, 30),
        ("text-chunks.png", .png, 48, 32), ("plain.png", .png, 33, 17),
        ("lossy-exif-xmp.webp", .webp, 64, 48), ("lossless-exif-icc.webp", .webp, 48, 32),
        ("lossy.webp", .webp, 33, 17), ("lossless.webp", .webp, 33, 17),
    ]

    static var names: [String] { all.map(\.name) }

    static func bytes(_ name: String) throws -> [UInt8] {
        try read(testsFolder.appendingPathComponent("Fixtures/\(name)"))
    }

    /// The sample trips' photos, `Sources/TripsStore/Resources/SamplePhotos/trip-<id>.jpg`, by name.
    static func samplePhotos() throws -> [(name: String, bytes: [UInt8])] {
        let folder = testsFolder.appendingPathComponent("../../Sources/TripsStore/Resources/SamplePhotos").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jpg") }.sorted()
        return try names.map { ($0, try read(folder.appendingPathComponent($0))) }
    }

    private static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    private static func read(_ url: URL) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw FixtureMissing(path: url.path) }
        return Array(data)
    }
}

struct FixtureMissing: Error, CustomStringConvertible {
    var path: String
    var description: String { "no file at \(path)" }
}

/// Small files built byte by byte, each valid but for the flaw a test puts in.
enum Build {
    /// A JPEG segment: marker, two-byte length (counting itself), payload.
    static func segment(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, code, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    /// A baseline frame header of one component, `width` x `height`.
    static func frameHeader(width: Int, height: Int) -> [UInt8] {
        segment(0xC0, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0])
    }

    /// A scan header for that one component, then two bytes of (pretend) entropy-coded data.
    static let scan = segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x12, 0x34]

    /// A JPEG of the given segments between start- and end-of-image.
    static func jpeg(_ parts: [UInt8]...) -> [UInt8] {
        [0xFF, 0xD8] + parts.joined() + [0xFF, 0xD9]
    }

    /// A PNG chunk; the CRC is left zero, as the reader does not check it.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let length = UInt32(data.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + Array(type.utf8) + data + [0, 0, 0, 0]
    }

    static func ihdr(width: UInt32, height: UInt32) -> [UInt8] {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0])
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func png(_ chunks: [UInt8]...) -> [UInt8] {
        pngSignature + chunks.joined()
    }

    /// A RIFF chunk with its padding byte when the payload's size is odd.
    static func riffChunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
        let padding: [UInt8] = payload.count % 2 == 1 ? [0] : []
        return Array(tag.utf8) + littleEndian(UInt32(payload.count)) + payload + padding
    }

    /// A WebP file of these chunks, with the RIFF size they need.
    static func webp(_ chunks: [UInt8]...) -> [UInt8] {
        let body = Array("WEBP".utf8) + chunks.joined()
        return Array("RIFF".utf8) + littleEndian(UInt32(body.count)) + body
    }

    /// A lossless header of `width` x `height` (and no image data after it, which the reader
    /// does not look at).
    static func vp8l(width: Int, height: Int) -> [UInt8] {
        riffChunk("VP8L", [0x2F] + littleEndian(UInt32(width - 1) | UInt32(height - 1) << 14))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        bigEndian(value).reversed()
    }
}

extension Collection where Element: Equatable {
    /// Whether `part` occurs anywhere in this collection.
    func contains(subsequence part: [Element]) -> Bool {
        guard !part.isEmpty, count >= part.count else { return part.isEmpty }
        var start = startIndex
        while distance(from: start, to: endIndex) >= part.count {
            if self[start...].starts(with: part) { return true }
            start = index(after: start)
        }
        return false
    }
}
