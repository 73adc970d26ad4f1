/// One log line written field by field into a byte buffer, in logfmt or as a JSON object,
/// without building a String: the access log writes one per request.
///
///     var line = LogLine(format: .json, into: &buffer)
///     line.string("method", "http.request.method", "GET", into: &buffer)
///     line.integer("status", "http.response.status_code", 200, into: &buffer)
///     line.end(into: &buffer)
///     // {"http.request.method":"GET","http.response.status_code":200}\n
///     // (logfmt: method=GET status=200\n)
///
/// Every value is escaped for its format, so no value can end the line or forge a field:
/// logfmt quotes a value that holds a space, `"`, `=` or a control byte, and writes control
/// bytes as `?`; JSON escapes `"`, `\` and control bytes, and replaces bytes that are not
/// UTF-8 with U+FFFD. Names are the caller's constants and are written as they are.
package struct LogLine {
    package let format: LogFormat
    private var isEmpty = true

    /// Starts a line at the end of `buffer`.
    package init(format: LogFormat, into buffer: inout [UInt8]) {
        self.format = format
        if format == .json { buffer.append(UInt8(ascii: "{")) }
    }

    /// Ends the line: `}` for JSON, then a line feed.
    package func end(into buffer: inout [UInt8]) {
        if format == .json { buffer.append(UInt8(ascii: "}")) }
        buffer.append(UInt8(ascii: "\n"))
    }

    /// A text value, escaped for the format.
    package mutating func string(_ logfmtName: StaticString, _ jsonName: StaticString, _ value: String, into buffer: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes(logfmtName, jsonName, UnsafeRawBufferPointer($0), into: &buffer) }
    }

    /// Bytes from anywhere (a client's, say), escaped for the format.
    package mutating func bytes(
        _ logfmtName: StaticString, _ jsonName: StaticString, _ value: UnsafeRawBufferPointer, into buffer: inout [UInt8]
    ) {
        name(logfmtName, jsonName, into: &buffer)
        switch format {
        case .logfmt: Self.appendLogfmtValue(value, to: &buffer)
        case .json: Self.appendJSONString(value, to: &buffer)
        }
    }

    /// A value the caller made of safe characters only (hex digits, a timestamp): quoted in
    /// JSON, as it is in logfmt. `body` appends it.
    package mutating func text(
        _ logfmtName: StaticString, _ jsonName: StaticString, into buffer: inout [UInt8], _ body: (inout [UInt8]) -> Void
    ) {
        name(logfmtName, jsonName, into: &buffer)
        if format == .json { buffer.append(UInt8(ascii: "\"")) }
        body(&buffer)
        if format == .json { buffer.append(UInt8(ascii: "\"")) }
    }

    /// A non-negative integer.
    package mutating func integer(_ logfmtName: StaticString, _ jsonName: StaticString, _ value: Int, into buffer: inout [UInt8]) {
        name(logfmtName, jsonName, into: &buffer)
        Self.appendDecimal(value, to: &buffer)
    }

    /// `units` as a decimal with `fractionDigits` digits after the point: 1500 with 3 is
    /// `1.500` (milliseconds from microseconds, say).
    package mutating func fixedPoint(
        _ logfmtName: StaticString, _ jsonName: StaticString, _ units: UInt64, fractionDigits: Int, into buffer: inout [UInt8]
    ) {
        name(logfmtName, jsonName, into: &buffer)
        var scale: UInt64 = 1
        for _ in 0..<fractionDigits { scale &*= 10 }
        Self.appendDecimal(Int(units / scale), to: &buffer)
        buffer.append(UInt8(ascii: "."))
        Self.appendPadded(Int(units % scale), width: fractionDigits, to: &buffer)
    }

    /// The separator and the name: ` name=` (the first without the space), or `,"name":`.
    private mutating func name(_ logfmtName: StaticString, _ jsonName: StaticString, into buffer: inout [UInt8]) {
        switch format {
        case .logfmt:
            if !isEmpty { buffer.append(UInt8(ascii: " ")) }
            logfmtName.withUTF8Buffer { buffer.append(contentsOf: $0) }
            buffer.append(UInt8(ascii: "="))
        case .json:
            if !isEmpty { buffer.append(UInt8(ascii: ",")) }
            buffer.append(UInt8(ascii: "\""))
            jsonName.withUTF8Buffer { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        isEmpty = false
    }

    // MARK: - Escaping

    /// A logfmt value, quoted when it is empty or holds a space, `"`, `=` or a control byte;
    /// inside quotes `"` and `\` are escaped and control bytes become `?`.
    package static func appendLogfmtValue(_ value: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        let needsQuotes =
            value.isEmpty || value.contains { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == 0x7F }
        guard needsQuotes else {
            buffer.append(contentsOf: value)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in value {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { buffer.append(UInt8(ascii: "\\")) }
            buffer.append(byte < 0x20 || byte == 0x7F ? UInt8(ascii: "?") : byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// A JSON string (RFC 8259 §7): `"` and `\` escaped, control bytes and DEL as `\u00XX`
    /// (`\n`, `\r`, `\t` short), and anything that is not well-formed UTF-8 replaced by U+FFFD,
    /// one replacement per byte that starts no valid sequence.
    package static func appendJSONString(_ value: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var index = 0
        while index < value.count {
            let byte = value[index]
            if byte < 0x80 {
                appendJSONASCII(byte, to: &buffer)
                index += 1
                continue
            }
            let length = validSequenceLength(value, at: index)
            if length == 0 {
                buffer.append(contentsOf: [0xEF, 0xBF, 0xBD])
                index += 1
            } else {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: value[index..<index + length]))
                index += length
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static func appendJSONASCII(_ byte: UInt8, to buffer: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), byte])
        case 0x0A: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0..<0x20, 0x7F:
            buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            buffer.append(hexDigit(byte >> 4))
            buffer.append(hexDigit(byte & 0x0F))
        default: buffer.append(byte)
        }
    }

    /// The length of the well-formed UTF-8 sequence of two to four bytes at `index`, or 0
    /// (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut short).
    /// https://www.unicode.org/versions/Unicode15.0.0/ch03.pdf#G7404 (table 3-7)
    private static func validSequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, secondRange) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, secondRange) = (3, 0x80...0x9F)
        case 0xF0: (length, secondRange) = (4, 0x90...0xBF)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, secondRange) = (4, 0x80...0x8F)
        default: return 0
        }
        guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return 0 }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return 0 }
        return length
    }

    // MARK: - Digits

    /// A lowercase hex digit for the low four bits of `nibble`.
    package static func hexDigit(_ nibble: UInt8) -> UInt8 {
        let value = nibble & 0xF
        return value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ (value &- 10)
    }

    /// A non-negative integer in decimal, without building a String.
    package static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        appendPadded(value, width: 1, to: &buffer)
    }

    /// A non-negative integer in decimal, zero-padded on the left to `width` digits.
    package static func appendPadded(_ value: Int, width: Int, to buffer: inout [UInt8]) {
        var divisor = 1
        var digits = 1
        while digits < width || value / divisor >= 10 {
            divisor *= 10
            digits += 1
        }
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        }
    }
}
