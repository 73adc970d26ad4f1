/// One `name=value` pair of a query string, percent-decoded.
package struct HTTPQueryItem: Sendable, Hashable {
    package var name: String
    package var value: String
}

extension HTTPRequest {
    /// The query parsed as `application/x-www-form-urlencoded`: pairs split on `&`, `+` read as a
    /// space, `%XX` decoded; a malformed escape is kept as it is.
    ///
    ///     // GET /trips?q=new+york&tag=a%26b&flag
    ///     request.queryItems  // [q: "new york", tag: "a&b", flag: ""]
    package var queryItems: [HTTPQueryItem] {
        guard let query else { return [] }
        return Self.formItems(query[...])
    }

    /// `application/x-www-form-urlencoded` text parsed into its pairs, as `queryItems` reads a
    /// query: a form a page posts is written the same way.
    ///
    ///     HTTPRequest.formItems("token=a%2Bb&next=%2Ftrips")  // [token: "a+b", next: "/trips"]
    package static func formItems(_ encoded: Substring) -> [HTTPQueryItem] {
        guard !encoded.isEmpty else { return [] }
        return encoded.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                return HTTPQueryItem(
                    name: Self.formDecode(pair[..<equals]),
                    value: Self.formDecode(pair[pair.index(after: equals)...]))
            }
            return HTTPQueryItem(name: Self.formDecode(pair), value: "")
        }
    }

    /// Decodes `+` and `%XX` escapes.
    package static func formDecode(_ bytes: Substring.UTF8View) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"),
                let high = bytes.index(index, offsetBy: 1, limitedBy: bytes.endIndex), high < bytes.endIndex,
                let low = bytes.index(high, offsetBy: 1, limitedBy: bytes.endIndex), low < bytes.endIndex,
                let h = hexValue(bytes[high]), let l = hexValue(bytes[low])
            {
                output.append(h << 4 | l)
                index = low
            } else {
                output.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: output, as: UTF8.self)
    }
}

extension HTTPRequest {
    /// `query` as a URI's query may hold it (RFC 3986 §3.4): unreserved characters,
    /// sub-delimiters, `:@/?` and well-formed `%XX` escapes are kept, and every other byte is
    /// percent-encoded, so that a `>` or `"` a client sent raw cannot end the URL it is copied
    /// into (a `Link: <…>` field, an `href`).
    ///
    ///     HTTPRequest.uriEncodedQuery("q=a>b&limit=2")  // "q=a%3Eb&limit=2"
    ///
    /// https://www.rfc-editor.org/rfc/rfc3986#section-3.4
    package static func uriEncodedQuery(_ query: String) -> String {
        let bytes = Array(query.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        for (index, byte) in bytes.enumerated() {
            let isEscape =
                byte == UInt8(ascii: "%") && index + 2 < bytes.count && hexValue(bytes[index + 1]) != nil
                && hexValue(bytes[index + 2]) != nil
            if isEscape || isUnreserved(byte) || isSubDelimiter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?")
            {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(Self.upperHexDigit(byte >> 4))
                output.append(Self.upperHexDigit(byte & 0xF))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func upperHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ (nibble &- 10)
    }
}
