import TripsDomain

/// The links of the list page: a view of `/trips` written back as a URL, so the chips, the
/// sort choices and the search form each change one part of the view and keep the rest.
extension TripQuery {
    /// `/trips`, with this view's parameters in the order the API documents them.
    var pagePath: String {
        var parameters: [(String, String)] = []
        if filter != .all { parameters.append(("filter", filter.rawValue)) }
        if let country { parameters.append(("country", country)) }
        if let search { parameters.append(("q", search)) }
        if let order { parameters.append(("sort", order.parameter)) }
        guard !parameters.isEmpty else { return "/trips" }
        return "/trips?" + parameters.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// The value with every byte but the unreserved ones (RFC 3986 §2.3) percent-encoded.
    private static func percentEncoded(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }
}

extension TripOrder {
    /// How `?sort=` writes this order: `start`, `-start`, `price` or `-price`.
    var parameter: String { (isDescending ? "-" : "") + key.rawValue }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
