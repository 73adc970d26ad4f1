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
        var value = value
        value.withUTF8 { text(utf8: $0) }
    }

    /// UTF-8 text, escaped as `text(_:)` does: the runs between characters to escape are
    /// appended whole (most text has none).
    mutating func text(utf8: UnsafeBufferPointer<UInt8>) {
        escape(utf8, keepingDoubleQuotes: false)
    }

    /// ` name='value'`, the value escaped but for its double quotes, which need none between
    /// single quotes: JSON or an entity tag is full of them, and each `&quot;` costs five
    /// bytes more (a row's JSON about 150, a tenth of a long list's page).
    mutating func singleQuotedAttribute(_ name: StaticString, utf8 value: UnsafeBufferPointer<UInt8>) {
        markup(" ")
        markup(name)
        markup("='")
        escape(value, keepingDoubleQuotes: true)
        markup("'")
    }

    /// ` name='value'`, as `singleQuotedAttribute(_:utf8:)` writes it.
    mutating func singleQuotedAttribute(_ name: StaticString, _ value: String) {
        var value = value
        value.withUTF8 { singleQuotedAttribute(name, utf8: $0) }
    }

    private mutating func escape(_ utf8: UnsafeBufferPointer<UInt8>, keepingDoubleQuotes: Bool) {
        var runStart = 0
        for (index, byte) in utf8.enumerated() {
            let entity: StaticString
            switch byte {
            case UInt8(ascii: "&"): entity = "&amp;"
            case UInt8(ascii: "<"): entity = "&lt;"
            case UInt8(ascii: ">"): entity = "&gt;"
            case UInt8(ascii: "\"") where !keepingDoubleQuotes: entity = "&quot;"
            case UInt8(ascii: "'"): entity = "&#39;"
            default: continue
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            markup(entity)
            runStart = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    /// Markup written earlier by this server (a cached row).
    mutating func markup(_ written: [UInt8]) {
        bytes.append(contentsOf: written)
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
