/// Appends HTML to a byte buffer: markup the server wrote is appended as is, and every
/// value that came from a client (a city, notes, a search) through `text`, which escapes
/// it, so a trip named `<img src=x onerror=alert(1)>` reads as those characters.
struct HTMLWriter {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// Markup written by the server: never a client's data.
    mutating func markup(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Text or an attribute value, escaped for both places (`&`, `<`, `>`, `"` and `'`).
    mutating func text(_ value: String) {
        text(utf8: value.utf8)
    }

    /// UTF-8 text, escaped as `text(_:)` does.
    mutating func text(utf8: some Sequence<UInt8>) {
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "&"): markup("&amp;")
            case UInt8(ascii: "<"): markup("&lt;")
            case UInt8(ascii: ">"): markup("&gt;")
            case UInt8(ascii: "\""): markup("&quot;")
            case UInt8(ascii: "'"): markup("&#39;")
            default: bytes.append(byte)
            }
        }
    }

    /// A number, which needs no escaping.
    mutating func integer(_ value: some BinaryInteger) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// ` name="value"`, the value escaped.
    mutating func attribute(_ name: StaticString, _ value: String) {
        markup(" ")
        markup(name)
        markup("=\"")
        text(value)
        markup("\"")
    }
}
