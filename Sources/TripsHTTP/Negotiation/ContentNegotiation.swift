import TripsFormats

/// Picks the representation to send, the way `Transferable` does: the first of the
/// declared representations (most preferred first) among those the client likes best.
///
///     // declared: [application/json, text/plain]
///     // Accept: text/plain, application/json        → application/json (a tie: declared order)
///     // Accept: text/plain, application/json;q=0.9  → text/plain
///     // Accept: image/png                           → nil (406)
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-proactive-negotiation
package enum ContentNegotiation {
    /// The index into `offered` of the representation to send, or nil when the client
    /// accepts none of them. No `Accept`, or one with no valid element, accepts anything.
    package static func choose(_ offered: [MediaType], accept values: [String]) -> Int? {
        if values.count == 1, let index = exactChoice(offered, values[0]) { return index }
        return chooseByTheRules(offered, accept: values)
    }

    /// `choose` with a request's fields: the commonest case, one `Accept` field, is read
    /// without making an array of its values.
    package static func choose(_ offered: [MediaType], accept fields: HTTPFields) -> Int? {
        if let only = fields.onlyValue(for: .accept), let index = exactChoice(offered, only) { return index }
        return chooseByTheRules(offered, accept: fields.values(for: .accept))
    }

    private static func chooseByTheRules(_ offered: [MediaType], accept values: [String]) -> Int? {
        let accept = AcceptField(values)
        guard !accept.ranges.isEmpty else { return offered.isEmpty ? nil : 0 }
        var best: (index: Int, quality: Int)?
        for (index, mediaType) in offered.enumerated() {
            let quality = accept.quality(of: mediaType)
            if quality > 0, quality > (best?.quality ?? 0) { best = (index, quality) }
        }
        return best?.index
    }

    /// The answer for the commonest `Accept` of all, one bare type (`text/plain`, `*/*`), found
    /// without parsing the field: the same index the full rules give, or nil to apply them.
    /// (A bare type has quality 1, as do the types whose suffix names it; every other type 0.)
    /// One pass over the bytes: searches through closures cost more than the rest of a read.
    private static func exactChoice(_ offered: [MediaType], _ value: String) -> Int? {
        var value = value
        return value.withUTF8 { bytes -> Int? in
            var start = 0
            var end = bytes.count
            while start < end && isWhitespace(bytes[start]) { start += 1 }
            while end > start && isWhitespace(bytes[end - 1]) { end -= 1 }
            var slash: Int?
            for index in start..<end {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: ";"):
                    return nil
                case UInt8(ascii: "*"):
                    // `*/*` is answered here; a range such as `text/*` by the full rules.
                    let isAnything = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<end]).equals("*/*")
                    return isAnything && !offered.isEmpty ? 0 : nil
                case UInt8(ascii: "/") where slash == nil:
                    slash = index
                default:
                    break
                }
            }
            guard let slash else { return nil }
            let type = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<slash])
            let subtype = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[(slash + 1)..<end])
            // Compared part by part with the offered (lowercased) names: spelling out each
            // `type/subtype` cost more than the rest of a cached read.
            // By index: an element bound by a closure was a copy of its three strings.
            guard
                let named = offered.indices.first(where: {
                    Self.equals(offered[$0].type, type) && Self.equals(offered[$0].subtype, subtype)
                })
            else { return nil }
            // A type with a suffix whose base is the named one (`application/problem+json` for
            // `application/json`) has its quality too, and wins if declared first. Only a type
            // whose subtype is longer (by `+` at least) can be one: asked first, as a string
            // knows its length, where looking for a `+` in it costs more than the rest.
            let base = offered[named]
            let baseLength = base.subtype.utf8.count
            return offered[..<named].firstIndex { $0.subtype.utf8.count > baseLength && $0.suffixBase == base } ?? named
        }
    }

    /// Whether `bytes`, lowercased, are `lowercased`'s.
    private static func equals(_ lowercased: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        // The lengths first: most offered names differ in length, and a string knows its own.
        let name = lowercased.utf8
        guard name.count == bytes.count else { return false }
        // In place: a copy of the string to call `withUTF8` on was a retain and a release.
        return name.withContiguousStorageIfAvailable { name in zip(name, bytes).allSatisfy { $0 == asciiLowercased($1) } }
            ?? name.elementsEqual(bytes.lazy.map(asciiLowercased))
    }
}
