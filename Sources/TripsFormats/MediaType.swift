/// A media type a representation is written in, such as `application/json`.
/// Compared case-insensitively, as RFC 9110 §8.3.1 says types and subtypes are.
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased, e.g. `text`.
    public let type: String
    /// Lowercased, e.g. `plain`.
    public let subtype: String

    public init(type: String, subtype: String) {
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        contentTypeValue = self.type == "text" ? "\(self.type)/\(self.subtype); charset=utf-8" : "\(self.type)/\(self.subtype)"
    }

    public static let json = MediaType(type: "application", subtype: "json")
    public static let plainText = MediaType(type: "text", subtype: "plain")
    /// A page for a browser.
    public static let html = MediaType(type: "text", subtype: "html")
    public static let css = MediaType(type: "text", subtype: "css")
    public static let javaScript = MediaType(type: "text", subtype: "javascript")
    public static let svg = MediaType(type: "image", subtype: "svg+xml")
    /// An error answer (RFC 9457).
    public static let problemJSON = MediaType(type: "application", subtype: "problem+json")
    /// A stream of server-sent events (the WHATWG HTML standard's EventSource format).
    public static let eventStream = MediaType(type: "text", subtype: "event-stream")
    /// What a page's `<form method="post">` sends: `name=value` pairs joined by `&`, escaped.
    public static let formURLEncoded = MediaType(type: "application", subtype: "x-www-form-urlencoded")
    /// A JSON merge patch body (RFC 7396).
    public static let mergePatchJSON = MediaType(type: "application", subtype: "merge-patch+json")

    /// The `Content-Type` value written for a body in this type: text says it is UTF-8. Made
    /// once with the type (a function of it), not on every answer that names it (~900
    /// instructions of interpolation).
    public let contentTypeValue: String

    /// The type a structured syntax suffix names (RFC 6839): `application/json` for
    /// `application/problem+json`. A client that accepts JSON can read such a document.
    public var suffixBase: MediaType? {
        guard let plus = subtype.lastIndex(of: "+") else { return nil }
        return MediaType(type: type, subtype: String(subtype[subtype.index(after: plus)...]))
    }

    public var description: String { "\(type)/\(subtype)" }

    /// Whether `text` is exactly `description`, byte for byte (so lowercase, no parameters),
    /// compared without building it.
    /// Every request with a body asks this: compared as contiguous bytes, not through
    /// `String.UTF8View`'s generic slices (~2,700 instructions a call).
    public func isSpelled(exactlyBy text: String) -> Bool {
        var (type, subtype, text) = (type, subtype, text)
        return text.withUTF8 { text in
            type.withUTF8 { type in
                subtype.withUTF8 { subtype in
                    text.count == type.count + 1 + subtype.count && text[type.count] == UInt8(ascii: "/")
                        && Self.holds(type, in: text, at: 0) && Self.holds(subtype, in: text, at: type.count + 1)
                }
            }
        }
    }

    /// Whether `text` holds `part` from `offset` on (it has room for it).
    private static func holds(_ part: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        for index in 0..<part.count where text[offset + index] != part[index] { return false }
        return true
    }
}
