import TripsDomain

/// Picks the representation to send, the way `Transferable` does: the first of the
/// declared representations (most preferred first) among those the client likes best.
///
///     // declared: [application/json, text/plain]
///     // Accept: text/plain, application/json        → application/json (a tie: declared order)
///     // Accept: text/plain, application/json;q=0.9  → text/plain
///     // Accept: image/png                           → nil (406)
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-proactive-negotiation
enum ContentNegotiation {
    /// The index into `offered` of the representation to send, or nil when the client
    /// accepts none of them. No `Accept`, or one with no valid element, accepts anything.
    static func choose(_ offered: [MediaType], accept values: [String]) -> Int? {
        let accept = AcceptField(values)
        guard !accept.ranges.isEmpty else { return offered.isEmpty ? nil : 0 }
        var best: (index: Int, quality: Int)?
        for (index, mediaType) in offered.enumerated() {
            let quality = accept.quality(of: mediaType)
            if quality > 0, quality > (best?.quality ?? 0) { best = (index, quality) }
        }
        return best?.index
    }
}
