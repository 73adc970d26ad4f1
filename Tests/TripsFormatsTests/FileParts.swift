/// One part of an image file, as a naive listing sees it: a JPEG segment (a scan with its
/// entropy-coded data), a PNG chunk, a RIFF chunk; `name` is the marker (`FFE1`) or the type.
struct FilePart: Equatable, CustomStringConvertible {
    var name: String
    var bytes: [UInt8]

    var description: String { "\(name) (\(bytes.count) bytes)" }
}

/// Naive listings of a well-formed file's parts: the reference the readers' output is compared
/// with, part by part. They trust the file (fixtures only) and trap on a malformed one.
enum FileParts {
    /// Segments from start- to end-of-image, without fill bytes; each scan holds its data.
    static func jpeg(_ bytes: [UInt8]) -> [FilePart] {
        var parts = [FilePart(name: "FFD8", bytes: [0xFF, 0xD8])]
        var index = 2
        while index < bytes.count {
            precondition(bytes[index] == 0xFF, "no marker at \(index)")
            let code = bytes[index + 1]
            var end = index + 2
            if code != 0xD9, !(0xD0...0xD7).contains(code) {
                end += Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            }
            if code == 0xDA {
                while !(bytes[end] == 0xFF && bytes[end + 1] != 0 && !(0xD0...0xD7).contains(bytes[end + 1])) { end += 1 }
            }
            parts.append(FilePart(name: "FF" + hex(code), bytes: Array(bytes[index..<end])))
            if code == 0xD9 { break }
            index = end
        }
        return parts
    }

    /// Chunks after the signature, up to IEND.
    static func png(_ bytes: [UInt8]) -> [FilePart] {
        var parts: [FilePart] = []
        var index = 8
        while index < bytes.count {
            let length = bytes[index..<index + 4].reduce(0) { $0 << 8 | Int($1) }
            let name = String(decoding: bytes[index + 4..<index + 8], as: UTF8.self)
            parts.append(FilePart(name: name, bytes: Array(bytes[index..<index + 12 + length])))
            index += 12 + length
            if name == "IEND" { break }
        }
        return parts
    }

    /// Chunks after `RIFF`, the size and `WEBP`, with their padding.
    static func webp(_ bytes: [UInt8]) -> [FilePart] {
        var parts: [FilePart] = []
        var index = 12
        while index < bytes.count {
            let length = bytes[index + 4..<index + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            let end = index + 8 + length + length % 2
            parts.append(FilePart(name: String(decoding: bytes[index..<index + 4], as: UTF8.self), bytes: Array(bytes[index..<end])))
            index = end
        }
        return parts
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }
}
