/// Appends JSON text to a byte buffer, for responses written without `JSONEncoder`'s overhead.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Raw JSON text that is already valid, e.g. a cached encoding or punctuation.
    public mutating func appendRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func appendRaw(_ json: [UInt8]) {
        bytes.append(contentsOf: json)
    }

    /// A string literal with RFC 8259 §7 escaping.
    public mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        defer { bytes.append(UInt8(ascii: "\"")) }
        // Most strings need no escape: copied at once, not byte by byte.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: string.utf8)
            return
        }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
    }

    public mutating func appendInteger<I: BinaryInteger>(_ value: I) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `value` in decimal, zero-padded on the left to at least `width` characters, as
    /// timestamps spell their fields.
    public mutating func appendDigits(_ value: Int, width: Int) {
        guard value >= 0 else {
            let digits = String(value)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, width - digits.utf8.count)))
            bytes.append(contentsOf: digits.utf8)
            return
        }
        var divisor = 1
        var count = 1
        while count < width || value / divisor >= 10 {
            divisor *= 10
            count += 1
        }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    public mutating func appendBool(_ value: Bool) {
        appendRaw(value ? "true" : "false")
    }

    /// Any JSON value; an object's members in the order of their names, so output is stable.
    public mutating func appendValue(_ value: JSONValue) {
        switch value {
        case .null: appendRaw("null")
        case .bool(let flag): appendBool(flag)
        case .number(let literal): appendRaw(literal)
        case .string(let string): appendString(string)
        case .array(let elements):
            appendRaw("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { appendRaw(",") }
                appendValue(element)
            }
            appendRaw("]")
        case .object(let members):
            appendRaw("{")
            for (index, name) in members.keys.sorted().enumerated() {
                if index > 0 { appendRaw(",") }
                appendString(name)
                appendRaw(":")
                appendValue(members[name]!)
            }
            appendRaw("}")
        }
    }
}
