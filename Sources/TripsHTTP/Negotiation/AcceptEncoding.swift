/// A parsed `Accept-Encoding` field: the content codings a client takes, with their weights.
///
///     AcceptEncoding(["gzip, deflate, br"]).preferred          // .gzip
///     AcceptEncoding(["gzip;q=0.5, identity"]).preferred       // .identity
///     AcceptEncoding(["*;q=0"]).quality(of: .gzip)             // 0
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-accept-encoding
package struct AcceptEncoding: Sendable, Hashable {
    package struct Element: Sendable, Hashable {
        /// A coding's name, lowercased (`gzip`, `br`, `identity`), or `*`.
        package let coding: String
        /// Thousandths, as in `Accept`.
        package let quality: Int
    }

    /// The elements in the order sent; malformed ones are skipped, as in `Accept`.
    package let elements: [Element]

    package init(_ values: [String]) {
        elements = values.flatMap { value in splitList(value).compactMap(Self.parseElement) }
    }

    /// `( codings ) [ weight ]`, where `codings = content-coding / "identity" / "*"`.
    static func parseElement(_ element: Substring) -> Element? {
        let parts = splitList(element, separator: UInt8(ascii: ";"))
        guard let name = parts.first, isToken(name) else { return nil }
        var quality = 1000
        if parts.count > 1 {
            guard parts.count == 2, parts[1].lowercased().hasPrefix("q="),
                let weight = AcceptField.parseQuality(String(parts[1].dropFirst(2)))
            else { return nil }
            quality = weight
        }
        // `x-gzip` is gzip (RFC 9110 §8.4.1.3).
        let coding = name.lowercased()
        return Element(coding: coding == "x-gzip" ? "gzip" : coding, quality: quality)
    }

    /// The weight the client gives `coding`: that of the first element naming it, else that
    /// of `*`, else 0; but identity is acceptable unless refused by name or by `*;q=0`.
    package func quality(of coding: ContentCoding) -> Int {
        if let named = elements.first(where: { $0.coding == coding.name }) { return named.quality }
        if let any = elements.first(where: { $0.coding == "*" }) { return any.quality }
        return coding == .identity ? 1000 : 0
    }

    /// gzip when the client takes it and likes it at least as much as the content as it is;
    /// otherwise identity, even where the client refuses that too (`identity;q=0` alone): RFC
    /// 9110 lets a server then send no coding rather than a 406 that helps no one.
    package var preferred: ContentCoding {
        let gzip = quality(of: .gzip)
        return gzip > 0 && gzip >= quality(of: .identity) ? .gzip : .identity
    }
}
