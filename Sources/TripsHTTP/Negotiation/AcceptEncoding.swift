/// A parsed `Accept-Encoding` field: the weights a client gives the codings this server knows.
///
///     AcceptEncoding(["gzip, deflate, br"]).preferred          // .gzip
///     AcceptEncoding(["gzip;q=0.5, identity"]).preferred       // .identity
///     AcceptEncoding(["*;q=0"]).quality(of: .gzip)             // 0
///
/// Read byte by byte, with no string or array made: browsers send the field on every request.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-accept-encoding
package struct AcceptEncoding: Sendable, Hashable {
    /// The weight of the first element naming gzip (or `x-gzip`), identity and `*`, in
    /// thousandths as in `Accept`; nil where none does. Malformed elements are skipped.
    private var gzip: Int?
    private var identity: Int?
    private var any: Int?

    package init(_ values: [String]) {
        for value in values { add(value) }
    }

    /// Every `Accept-Encoding` field of `fields`; nil when there is none. Read in place, with
    /// no array of values made.
    package init?(in fields: HTTPFields) {
        // Asked first: most API clients send none, and walking the fields copies each one.
        guard fields.contains(.acceptEncoding) else { return nil }
        for field in fields where field.name == .acceptEncoding { add(field.value) }
    }

    private mutating func add(_ value: String) {
        var value = value
        value.withUTF8 { bytes in
            let field = UnsafeRawBufferPointer(bytes)
            forEachListElement(field) { range in read(UnsafeRawBufferPointer(rebasing: field[range])) }
        }
    }

    /// `( codings ) [ weight ]`, where `codings = content-coding / "identity" / "*"` and
    /// `weight = OWS ";" OWS "q=" qvalue`.
    private mutating func read(_ element: UnsafeRawBufferPointer) {
        var nameEnd = 0
        while nameEnd < element.count, element[nameEnd] != UInt8(ascii: ";") { nameEnd += 1 }
        var quality = 1000
        if nameEnd < element.count {
            var start = nameEnd + 1
            while start < element.count, isWhitespace(element[start]) { start += 1 }
            let weight = UnsafeRawBufferPointer(rebasing: element[start...])
            guard startsCaseInsensitive(weight, with: "q="),
                let parsed = AcceptField.parseQuality(UnsafeRawBufferPointer(rebasing: weight[2...]))
            else { return }
            quality = parsed
            while nameEnd > 0, isWhitespace(element[nameEnd - 1]) { nameEnd -= 1 }
        }
        let name = UnsafeRawBufferPointer(rebasing: element[..<nameEnd])
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return }
        if equalsCaseInsensitive(name, "gzip") || equalsCaseInsensitive(name, "x-gzip") {  // x-gzip is gzip (RFC 9110 §8.4.1.3)
            gzip = gzip ?? quality
        } else if equalsCaseInsensitive(name, "identity") {
            identity = identity ?? quality
        } else if name.equals("*") {
            any = any ?? quality
        }
    }

    /// The weight the client gives `coding`: that of the first element naming it, else that
    /// of `*`, else 0; but identity is acceptable unless refused by name or by `*;q=0`.
    package func quality(of coding: ContentCoding) -> Int {
        switch coding {
        case .gzip: gzip ?? any ?? 0
        case .identity: identity ?? any ?? 1000
        }
    }

    /// gzip when the client takes it and likes it at least as much as the content as it is;
    /// otherwise identity, even where the client refuses that too (`identity;q=0` alone): RFC
    /// 9110 lets a server then send no coding rather than a 406 that helps no one.
    package var preferred: ContentCoding {
        let gzip = quality(of: .gzip)
        return gzip > 0 && gzip >= quality(of: .identity) ? .gzip : .identity
    }
}
