/// One `name=value` pair of a query string, percent-decoded.
struct HTTPQueryItem: Sendable, Hashable {
    var name: String
    var value: String
}

extension HTTPRequest {
    /// The query parsed as `application/x-www-form-urlencoded`: pairs split on `&`, `+` read as a
    /// space, `%XX` decoded; a malformed escape is kept as it is.
    ///
    ///     // GET /trips?q=new+york&tag=a%26b&flag
    ///     request.queryItems  // [q: "new york", tag: "a&b", flag: ""]
    var queryItems: [HTTPQueryItem] {
        guard let query, !query.isEmpty else { return [] }
        return query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                return HTTPQueryItem(
                    name: Self.formDecode(pair[..<equals]),
                    value: Self.formDecode(pair[pair.index(after: equals)...]))
            }
            return HTTPQueryItem(name: Self.formDecode(pair), value: "")
        }
    }

    /// Decodes `+` and `%XX` escapes.
    static func formDecode(_ bytes: Substring.UTF8View) -> String {
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
