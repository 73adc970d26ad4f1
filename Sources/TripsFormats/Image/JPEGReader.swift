/// Reads a JPEG file (ITU-T T.81 Annex B, https://www.w3.org/Graphics/JPEG/itu-t81.pdf): its
/// size from the first frame header, and a copy without the segments that carry metadata.
///
/// A file is markers from start-of-image to end-of-image. Each marker is `FF`, any number of
/// fill bytes `FF`, and a code; standalone markers (RSTn, TEM) end there, the others start a
/// segment whose two-byte big-endian length counts itself. A start-of-scan segment is followed
/// by entropy-coded data, in which `FF` is followed by a stuffed `00` or a restart marker, so the
/// next other marker ends the scan. Progressive files have several scans, with table segments
/// between them; all of it is walked, so metadata between scans goes too.
///
/// Dropped: APP1 to APP15 (Exif with its GPS position, XMP, Photoshop's IPTC, MPF, maker
/// data) except an ICC profile in APP2, and comments; and whatever follows end-of-image
/// (phones append second images and trailers there, with metadata of their own). Kept as sent:
/// APP0 (JFIF), the tables, the frame and scan headers and the entropy-coded data, so the
/// pixels decode exactly as before.
enum JPEGReader {
    /// The start of an APP2 segment that holds (a part of) an ICC colour profile: kept, since
    /// the colours depend on it and it says nothing about the photographer.
    static let iccProfileIdentifier = Array("ICC_PROFILE\0".utf8)

    /// - Complexity: O(n) in the size of the file; each byte is looked at a bounded number of times.
    static func read(_ bytes: [UInt8]) throws(ImageError) -> (width: Int, height: Int, bytes: [UInt8]) {
        guard bytes.matches([0xFF, 0xD8], at: 0) else {
            throw .unreadableHeader("the file does not start with a JPEG start-of-image marker")
        }
        var output: [UInt8] = [0xFF, 0xD8]
        output.reserveCapacity(bytes.count)
        var size: (width: Int, height: Int)?
        var hasScan = false
        var offset = 2
        while true {
            guard offset < bytes.count else { throw .unreadableHeader("the file ends before its end-of-image marker") }
            guard bytes[offset] == 0xFF else { throw .unreadableHeader("byte \(offset) should start a marker but is not FF") }
            var codeOffset = offset + 1
            while codeOffset < bytes.count, bytes[codeOffset] == 0xFF { codeOffset += 1 }
            guard codeOffset < bytes.count else { throw .unreadableHeader("the file ends inside a marker at byte \(offset)") }
            let code = bytes[codeOffset]
            switch code {
            case 0xD9:
                guard let size, hasScan else { throw .unreadableHeader("the end-of-image marker comes before any image data") }
                output.append(contentsOf: bytes[offset...codeOffset])
                return (size.width, size.height, output)
            case 0x01, 0xD0...0xD7:
                output.append(contentsOf: bytes[offset...codeOffset])
                offset = codeOffset + 1
                continue
            case 0x00, 0xD8:
                throw .unreadableHeader("the marker FF \(hex(code)) at byte \(offset) is out of place")
            default:
                break
            }
            guard let length = bytes.bigEndian(2, at: codeOffset + 1) else {
                throw .unreadableHeader("the file ends inside the length of the segment at byte \(offset)")
            }
            guard length >= 2 else { throw .unreadableHeader("the segment FF \(hex(code)) at byte \(offset) has a length under 2") }
            let payloadStart = codeOffset + 3
            guard bytes.hasBytes(length - 2, at: payloadStart) else {
                throw .unreadableHeader("the segment FF \(hex(code)) at byte \(offset) runs past the end of the file")
            }
            let end = payloadStart + length - 2
            if isFrameHeader(code), size == nil {
                // Sample precision (1 byte), lines (2), samples per line (2), components (1)...
                // Zero lines (set later by a DNL segment) reads as a height the size check refuses.
                guard length - 2 >= 6, let height = bytes.bigEndian(2, at: payloadStart + 1),
                    let width = bytes.bigEndian(2, at: payloadStart + 3)
                else { throw .unreadableHeader("the frame header at byte \(offset) is too short") }
                size = (width, height)
            }
            if keeps(code, payload: bytes[payloadStart..<end]) {
                output.append(contentsOf: bytes[offset..<end])
            }
            if code == 0xDA {
                guard size != nil else { throw .unreadableHeader("the scan at byte \(offset) comes before any frame header") }
                hasScan = true
                let dataEnd = entropyCodedDataEnd(in: bytes, from: end)
                output.append(contentsOf: bytes[end..<dataEnd])
                offset = dataEnd
            } else {
                offset = end
            }
        }
    }

    /// SOF0 to SOF15: the frame headers of every coding process. C4 (DHT), C8 (JPG, reserved)
    /// and CC (DAC) share the range but are tables.
    private static func isFrameHeader(_ code: UInt8) -> Bool {
        (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
    }

    /// Whether a segment stays: everything but APP1-APP15 (an ICC profile in APP2 aside) and COM.
    private static func keeps(_ code: UInt8, payload: ArraySlice<UInt8>) -> Bool {
        switch code {
        case 0xE2: payload.starts(with: iccProfileIdentifier)
        case 0xE1...0xEF, 0xFE: false
        default: true
        }
    }

    /// Where the entropy-coded data that starts at `start` ends: at the first `FF` (with its fill
    /// bytes) followed by a code other than a stuffed `00` or a restart marker, or at the end of
    /// the file.
    private static func entropyCodedDataEnd(in bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            guard bytes[index] == 0xFF else {
                index += 1
                continue
            }
            var code = index + 1
            while code < bytes.count, bytes[code] == 0xFF { code += 1 }
            guard code < bytes.count, bytes[code] == 0x00 || (0xD0...0xD7).contains(bytes[code]) else { return index }
            index = code + 1
        }
        return bytes.count
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }
}
