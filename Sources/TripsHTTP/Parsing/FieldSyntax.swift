import Glibc

// The byte-level grammar of HTTP fields (RFC 9110 §5.5, §5.6): tokens, case-insensitive
// compares, comma lists, quoted strings, hex digits and optional whitespace. Every parser of
// a field value (the request parser, Accept, entity tags, Connection) uses these and no
// copies of its own.

/// Byte constants used across the HTTP layer.
package enum ASCII {
    package static let cr = UInt8(ascii: "\r")
    package static let lf = UInt8(ascii: "\n")
    package static let space = UInt8(ascii: " ")
    package static let tab = UInt8(ascii: "\t")
}

// MARK: - Bytes

/// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-tokens
@inline(__always)
func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
        UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
        return true
    default:
        return false
    }
}

/// Whether `text` is a non-empty token.
func isToken(_ text: Substring) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
}

/// OWS = *( SP / HTAB )
@inline(__always)
func isWhitespace(_ byte: UInt8) -> Bool {
    byte == ASCII.space || byte == ASCII.tab
}

@inlinable @inline(__always)
package func asciiLowercased(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
}

/// The value of one decimal digit, or nil.
@inlinable @inline(__always)
package func digitValue(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte &- UInt8(ascii: "0")) : nil
}

/// `1*DIGIT` as an `Int`: nil when empty, when any byte is not a digit, or past `Int.max`.
/// (Content-Length, a trip id in a path.)
@inlinable
package func decimalValue(_ digits: UnsafeRawBufferPointer) -> Int? {
    guard !digits.isEmpty else { return nil }
    var value = 0
    for byte in digits {
        guard let digit = digitValue(byte) else { return nil }
        let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(digit)
        guard !overflow1 && !overflow2 else { return nil }
        value = sum
    }
    return value
}

/// The value of one hex digit, or nil.
@inline(__always)
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
    default: nil
    }
}

/// Whether `bytes` equal the lowercase ASCII `literal`, ignoring case.
package func equalsCaseInsensitive(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
    guard bytes.count == literal.utf8CodeUnitCount else { return false }
    return startsCaseInsensitive(bytes, with: literal)
}

/// Whether `bytes` start with the lowercase ASCII `literal`, ignoring case.
func startsCaseInsensitive(_ bytes: UnsafeRawBufferPointer, with literal: StaticString) -> Bool {
    literal.withUTF8Buffer { expected in
        guard bytes.count >= expected.count else { return false }
        for index in 0..<expected.count where asciiLowercased(bytes[index]) != expected[index] {
            return false
        }
        return true
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes are exactly `literal`: a length check and one `memcmp`, where
    /// `elementsEqual(literal.utf8)` walks a String's UTF-8 view a byte at a time.
    @inline(__always)
    package func equals(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        guard let base = baseAddress else { return true }
        return memcmp(base, literal.utf8Start, count) == 0
    }
}

// MARK: - Lists and quoted strings

/// Calls `body` with the byte range of each element of a list separated by `separator`
/// (`,` for lists, `;` for parameters), OWS-trimmed; empty elements are skipped, and a
/// separator inside a quoted string does not split.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-lists-rule-abnf-extension
func forEachListElement(
    _ value: UnsafeRawBufferPointer, separator: UInt8 = UInt8(ascii: ","), _ body: (Range<Int>) -> Void
) {
    var start = 0
    var index = 0
    var inQuotes = false
    while index <= value.count {
        if index < value.count {
            let byte = value[index]
            if inQuotes && byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") { inQuotes.toggle() }
            if byte != separator || inQuotes {
                index += 1
                continue
            }
        }
        var low = start
        var high = min(index, value.count)
        while low < high, isWhitespace(value[low]) { low += 1 }
        while high > low, isWhitespace(value[high - 1]) { high -= 1 }
        if high > low { body(low..<high) }
        index += 1
        start = index
    }
}

/// The elements of a comma-separated field value (or, with `;`, of a parameter list), as
/// `forEachListElement` finds them.
package func splitList(_ text: some StringProtocol, separator: UInt8 = UInt8(ascii: ",")) -> [Substring] {
    let text = Substring(text)
    var parts: [Substring] = []
    func split(_ bytes: UnsafeRawBufferPointer) {
        forEachListElement(bytes, separator: separator) { range in
            let start = text.utf8.index(text.utf8.startIndex, offsetBy: range.lowerBound)
            let end = text.utf8.index(start, offsetBy: range.count)
            parts.append(text[start..<end])
        }
    }
    if text.utf8.withContiguousStorageIfAvailable({ split(UnsafeRawBufferPointer($0)) }) == nil {
        Array(text.utf8).withUnsafeBytes(split)
    }
    return parts
}

/// A token, or a quoted string's content with its escapes removed; nil for anything else.
func unquote(_ value: Substring) -> String? {
    if value.first == "\"" {
        guard value.count >= 2, value.last == "\"" else { return nil }
        var result = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if escaped || character != "\\" {
                result.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return escaped ? nil : result
    }
    return isToken(value) ? String(value) : nil
}

/// The index just past the quoted string that starts at `start`, or nil if it is malformed.
///
///     quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE
func quotedStringEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    var index = start + 1
    while index < bytes.count {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "\""):
            return index + 1
        case UInt8(ascii: "\\"):
            guard index + 1 < bytes.count, isFieldVisible(bytes[index + 1]) else { return nil }
            index += 2
        default:
            guard isFieldVisible(byte) else { return nil }
            index += 1
        }
    }
    return nil
}

/// HTAB, SP, VCHAR and obs-text: what a quoted string may hold.
func isFieldVisible(_ byte: UInt8) -> Bool {
    byte == ASCII.tab || (byte >= 0x20 && byte != 0x7F)
}

// MARK: - Host

/// `Host = uri-host [ ":" port ]`: an IP literal in brackets or a registered name (letters,
/// digits, `-._~!$&'()*+,;=` and percent-escapes), then an optional port of at most 65535.
/// An empty value is allowed (RFC 9112 §3.2); spaces, userinfo (`user@host`) and a port
/// that is not a number are not.
///
/// https://www.rfc-editor.org/rfc/rfc9112#name-request-target (§3.2), RFC 3986 §3.2.2
package func isValidHost(_ value: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    if value.first == UInt8(ascii: "[") {
        index = 1
        while index < value.count, value[index] != UInt8(ascii: "]") {
            guard isHostByte(value[index]) || value[index] == UInt8(ascii: ":") else { return false }
            index += 1
        }
        guard index < value.count, index > 1 else { return false }
        index += 1
    } else {
        while index < value.count, value[index] != UInt8(ascii: ":") {
            let byte = value[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < value.count, hexValue(value[index + 1]) != nil, hexValue(value[index + 2]) != nil else {
                    return false
                }
                index += 3
            } else {
                guard isHostByte(byte) else { return false }
                index += 1
            }
        }
    }
    guard index < value.count else { return true }
    guard value[index] == UInt8(ascii: ":"), value.count - index - 1 <= 5 else { return false }
    var port = 0
    index += 1
    while index < value.count {
        guard let digit = digitValue(value[index]) else { return false }
        port = port * 10 + digit
        index += 1
    }
    return port <= 65_535
}

/// Whether a byte may stand in a registered name or an IP literal: unreserved or a sub-delim.
/// Two bit masks, one per half of ASCII, so the test is a shift and an and: every request's
/// Host is checked. (`hostByteMasksMatchTheGrammar` checks them against the two predicates.)
@inline(__always)
package func isHostByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0..<64: return (hostByteMaskLow >> UInt64(byte)) & 1 == 1
    case 64..<128: return (hostByteMaskHigh >> UInt64(byte - 64)) & 1 == 1
    default: return false
    }
}

let hostByteMaskLow: UInt64 = 0x2bff_7fd2_0000_0000
let hostByteMaskHigh: UInt64 = 0x47ff_fffe_87ff_fffe

/// unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
package func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        true
    default:
        false
    }
}

/// sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
package func isSubDelimiter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
        UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
        true
    default:
        false
    }
}
