import TripsFormats

/// A parsed `Accept` field: the ranges a client takes, in the order it sent them.
package struct AcceptField: Sendable, Hashable {
    package let ranges: [MediaRange]

    /// Parses every `Accept` value of a request. A malformed element (`text/plain;q=2`, `*/plain`)
    /// is skipped and the valid ones still count; with no valid element at all, `ranges` is empty
    /// and callers treat the field as absent.
    package init(_ values: [String]) {
        ranges = values.flatMap { value in splitList(value).compactMap(Self.parseRange) }
    }

    /// The quality the client gives `mediaType`: that of the most specific range that covers it.
    ///
    /// A type with a structured syntax suffix (`application/problem+json`) that no range names
    /// exactly gets the quality of its base type (`application/json`, `application/*`, `*/*`).
    package func quality(of mediaType: MediaType) -> Int {
        if let base = mediaType.suffixBase,
            !ranges.contains(where: { $0.type == mediaType.type && $0.subtype == mediaType.subtype })
        {
            return quality(of: base)
        }
        var best: MediaRange?
        for range in ranges where range.matches(mediaType) {
            if range.specificity > (best?.specificity ?? -1) { best = range }
        }
        return best?.quality ?? 0
    }

    /// `type/subtype *( OWS ";" OWS parameter ) [ weight ]`
    package static func parseRange(_ element: Substring) -> MediaRange? {
        var parts = splitList(element, separator: UInt8(ascii: ";"))
        guard !parts.isEmpty else { return nil }
        let name = parts.removeFirst()
        let slash = name.split(separator: "/", omittingEmptySubsequences: false)
        guard slash.count == 2, isToken(slash[0]), isToken(slash[1]) else { return nil }
        let type = slash[0].lowercased()
        let subtype = slash[1].lowercased()
        guard type != "*" || subtype == "*" else { return nil }
        var parameters: [String: String] = [:]
        var quality = 1000
        for part in parts {
            guard let equals = part.firstIndex(of: "=") else { return nil }
            let key = part[..<equals].lowercased()
            guard isToken(Substring(key)), let value = unquote(part[part.index(after: equals)...]) else { return nil }
            if key == "q" {
                guard let weight = parseQuality(value) else { return nil }
                quality = weight
                break  // what follows the weight are accept extensions, not media type parameters
            }
            parameters[key] = key == "charset" ? value.lowercased() : value
        }
        return MediaRange(type: type, subtype: subtype, parameters: parameters, quality: quality)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
    /// https://www.rfc-editor.org/rfc/rfc9110#name-quality-values
    package static func parseQuality(_ text: String) -> Int? {
        Array(text.utf8).withUnsafeBytes(parseQuality)
    }

    /// `parseQuality` of bytes.
    package static func parseQuality(_ utf8: UnsafeRawBufferPointer) -> Int? {
        guard let first = utf8.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        var value = Int(first - UInt8(ascii: "0")) * 1000
        guard utf8.count > 1 else { return value }
        guard utf8[1] == UInt8(ascii: "."), utf8.count <= 5 else { return nil }
        var scale = 100
        for digit in utf8[2...] {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }
}
