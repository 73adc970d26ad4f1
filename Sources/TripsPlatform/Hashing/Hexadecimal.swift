/// Bytes as lowercase hexadecimal text, and back: a SHA-256 as a photo's name, and a photo's
/// bytes as PostgreSQL's `encode(…, 'hex')` and `decode(…, 'hex')` write and read them.
///
///     Hexadecimal.encode([0x00, 0x9f, 0xff])  // "009fff"
///     Hexadecimal.decode("009FFF")            // [0x00, 0x9f, 0xff]
package enum Hexadecimal {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Two lowercase digits per byte.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes two digits each (either case) stand for; nil for an odd count or any other character.
    package static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { utf8 -> [UInt8]? in
            guard utf8.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count / 2)
            var index = 0
            while index < utf8.count {
                guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
                index += 2
            }
            return bytes
        }
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
