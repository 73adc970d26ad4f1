/// The length limits as the API contract states them: `openapi.yaml`'s `maxLength` counts
/// Unicode code points (JSON Schema's characters), where `TripDraft.violations` counts
/// characters as Swift does (grapheme clusters), so a name of a few letters under a pile of
/// combining marks passed the one and broke the other. A change a client makes now must meet
/// both; a list read back (a journal's records, another instance's changes) holds what it
/// accepted before, and replays it as it was.
extension TripChange {
    /// The first-met limit a draft of this change breaks only when counted in code points
    /// (counted as characters, `violations` reports it, in its own words); nil for none, and for
    /// a change that writes no text.
    package var codePointLimitViolation: TripsError? {
        switch self {
        case .add(let drafts, _):
            TripsError.combining(
                drafts.enumerated().flatMap { index, draft in
                    draft.codePointViolations.map { drafts.count == 1 ? $0 : .inElement(index, $0) }
                })
        case .replace(_, let draft): TripsError.combining(draft.codePointViolations)
        default: nil
        }
    }
}

extension TripDraft {
    /// Each text field over its limit in code points though within it in characters.
    var codePointViolations: [TripsError] {
        [
            (Trip.Field.city, city, Limits.nameLength), (.country, country, Limits.nameLength),
            (.imageName, imageName, Limits.nameLength), (.notes, notes, Limits.notesLength),
        ].compactMap { field, text, limit in
            // Within the limit in bytes, within it in code points: most text ends here.
            guard text.utf8.count > limit, text.unicodeScalars.count > limit, !text.hasMoreCharacters(than: limit) else { return nil }
            return .invalidField(field, "must be at most \(limit) characters, counted as Unicode code points")
        }
    }
}
