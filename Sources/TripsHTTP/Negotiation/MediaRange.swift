import TripsFormats

/// One element of an `Accept` field: a media range, its parameters and its weight.
///
///     text/plain;charset=utf-8;q=0.5
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-accept
package struct MediaRange: Sendable, Hashable {
    /// Lowercased; `*` for any.
    package let type: String
    /// Lowercased; `*` for any.
    package let subtype: String
    /// Parameters before the weight, names lowercased (`charset` values lowercased too).
    let parameters: [String: String]
    /// The weight in thousandths: 0 (not acceptable) to 1000.
    let quality: Int

    /// How closely this range names a type: `*/*` < `text/*` < `text/plain` < `text/plain;charset=utf-8`.
    var specificity: Int {
        if type == "*" { return 0 }
        if subtype == "*" { return 1 }
        return 2 + parameters.count
    }

    /// Whether this range covers `mediaType` as the server writes it (always UTF-8).
    package func matches(_ mediaType: MediaType) -> Bool {
        guard type == "*" || type == mediaType.type, subtype == "*" || subtype == mediaType.subtype else {
            return false
        }
        // Everything this service writes is UTF-8; any other parameter names something it does not make.
        return parameters.allSatisfy { name, value in name == "charset" && value == "utf-8" }
    }
}
