/// Appends JSON text to a byte buffer, for responses written without `JSONEncoder`'s overhead.
///
/// The buffer is an array kept longer than what is written, zeros past `count`: each append
/// copies its bytes through one pointer into that room, where `Array.append` would check
/// and grow the array once per call, or once per byte (a page of 50 trips cost 16,000
/// instructions a trip that way, most of them in those checks).
public struct JSONWriter: Sendable {
    private var storage: [UInt8]
    /// How many bytes were written.
    public private(set) var count = 0

    /// What was written.
    public var bytes: [UInt8] { count == storage.count ? storage : Array(storage[..<count]) }

    public init(reservingCapacity capacity: Int = 256) {
        storage = [UInt8](repeating: 0, count: max(capacity, 16))
    }

    /// Lets `body` write at most `maximum` bytes at the end, through a pointer; it returns how
    /// many it wrote.
    private mutating func write(atMost maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < maximum {
            storage.appendZeros(max(storage.count, count + maximum - storage.count))
        }
        let start = count
        count += storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }

    private mutating func append(_ run: UnsafeBufferPointer<UInt8>) {
        guard let source = run.baseAddress, !run.isEmpty else { return }
        write(atMost: run.count) { target in
            target.update(from: source, count: run.count)
            return run.count
        }
    }

    /// Raw JSON text that is already valid, e.g. a cached encoding or punctuation: copied
    /// from its UTF-8 storage at once (a literal's needs no copy to get there).
    public mutating func appendRaw(_ text: String) {
        Self.withUTF8(of: text) { append($0) }
    }

    /// `body` given `text`'s UTF-8 in place: through the view's contiguous storage, a quarter
    /// fewer instructions for the short literals most appends are than `withUTF8` on a copy;
    /// `withUTF8`, which makes it contiguous, for a string that is not.
    private static func withUTF8<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var text = text
        return text.withUTF8(body)
    }

    public mutating func appendRaw(_ json: [UInt8]) {
        json.withUnsafeBufferPointer { append($0) }
    }

    /// A string literal with RFC 8259 §7 escaping: counted first, so that a string with
    /// nothing to escape (most are) is copied whole.
    public mutating func appendString(_ string: String) {
        Self.withUTF8(of: string) { utf8 in
            var escapes = 0
            for byte in utf8 where Self.needsEscape(byte) { escapes += byte < 0x20 && !Self.hasShortEscape(byte) ? 5 : 1 }
            write(atMost: utf8.count + escapes + 2) { target in
                target[0] = Self.quote
                var written = 1
                if escapes == 0, let source = utf8.baseAddress {
                    (target + 1).update(from: source, count: utf8.count)
                    written += utf8.count
                } else {
                    for byte in utf8 { written += Self.write(byte, to: target + written) }
                }
                target[written] = Self.quote
                return written + 1
            }
        }
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == quote || byte == backslash
    }

    /// A control character JSON spells with one letter (`\n`, `\r`, `\t`).
    private static func hasShortEscape(_ byte: UInt8) -> Bool {
        byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Writes `byte` as a JSON string holds it (escaped when it must be); returns the bytes written.
    private static func write(_ byte: UInt8, to target: UnsafeMutablePointer<UInt8>) -> Int {
        guard needsEscape(byte) else {
            target[0] = byte
            return 1
        }
        target[0] = backslash
        switch byte {
        case 0x0A: target[1] = UInt8(ascii: "n")
        case 0x0D: target[1] = UInt8(ascii: "r")
        case 0x09: target[1] = UInt8(ascii: "t")
        case quote, backslash: target[1] = byte
        default:
            let hex: StaticString = "0123456789abcdef"
            hex.withUTF8Buffer { digits in
                target[1] = UInt8(ascii: "u")
                target[2] = UInt8(ascii: "0")
                target[3] = UInt8(ascii: "0")
                target[4] = digits[Int(byte >> 4)]
                target[5] = digits[Int(byte & 0x0F)]
            }
            return 6
        }
        return 2
    }

    /// `value` in decimal, its digits written straight into the buffer (no `String` between).
    public mutating func appendInteger(_ value: Int) {
        appendDigits(value, width: 1)
    }

    /// Any other integer type: the same digits, through `String` only past `Int`'s range.
    public mutating func appendInteger<I: BinaryInteger>(_ value: I) {
        if let value = Int(exactly: value) {
            appendDigits(value, width: 1)
        } else {
            appendRaw(String(value))
        }
    }

    /// `value` in decimal, zero-padded on the left to at least `width` digits (after any
    /// minus sign), as timestamps spell their fields.
    public mutating func appendDigits(_ value: Int, width: Int) {
        appendBytes(atMost: Self.maxDigits(width: width)) { Self.writeDigits(value, width: width, to: $0) }
    }

    /// Lets `body` write at most `maximum` bytes at the end, through a pointer, and return
    /// how many it wrote: for a form written in one step (a timestamp) rather than an append
    /// per field.
    public mutating func appendBytes(atMost maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        write(atMost: maximum, body)
    }

    /// The most bytes `writeDigits` writes for an `Int` at `width`.
    public static func maxDigits(width: Int) -> Int { max(width, 19) + 1 }

    /// Writes `value` as `appendDigits` spells it at `target`; returns the bytes written.
    public static func writeDigits(_ value: Int, width: Int, to target: UnsafeMutablePointer<UInt8>) -> Int {
        let magnitude = value.magnitude
        var digits = 1
        var rest = magnitude
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        let padding = max(width - digits, 0)
        let sign = value < 0 ? 1 : 0
        if sign == 1 { target[0] = UInt8(ascii: "-") }
        (target + sign).update(repeating: UInt8(ascii: "0"), count: padding)
        rest = magnitude
        var index = sign + padding + digits
        repeat {
            index -= 1
            target[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        return sign + padding + digits
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
