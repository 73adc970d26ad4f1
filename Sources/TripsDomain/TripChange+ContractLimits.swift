/// The length limits as the API contract states them: `openapi.yaml`'s `maxLength` counts
/// Unicode code points (JSON Schema's characters), where `TripDraft.violations` counts
/// characters as Swift does (grapheme clusters), so a name of a few letters under a pile of
/// combining marks passed the one and broke the other. A change a client makes now must meet
/// both; a list read back (a journal's records, another instance's changes) holds what it
/// accepted before, and replays it as it was.
extension TripChange {
    /// The limits the change's drafts break only when counted in code points (counted as
    /// characters too, `violations` reports them, in its own words), combined as it combines
    /// its own; nil for none, and for a change that writes no text.
    package var codePointLimitViolation: TripsError? {
        switch self {
        case .add(let drafts, _):
            // Most drafts hold no text longer in bytes than its limit: nothing to count or gather.
            guard drafts.contains(where: \.isOverALimitInBytes) else { return nil }
            return TripsError.combining(
                drafts.enumerated().flatMap { index, draft in
                    draft.codePointViolations.map { drafts.count == 1 ? $0 : .inElement(index, $0) }
                })
        case .replace(_, let draft):
            guard draft.isOverALimitInBytes else { return nil }
            return TripsError.combining(draft.codePointViolations)
        default:
            return nil
        }
    }
}

extension TripDraft {
    /// Whether a text field has more bytes than its limit allows characters: only then can it
    /// have more code points (each is one to four bytes). A count each, kept by the string.
    var isOverALimitInBytes: Bool {
        city.utf8.count > Limits.nameLength || country.utf8.count > Limits.nameLength
            || imageName.utf8.count > Limits.nameLength || notes.utf8.count > Limits.notesLength
    }

    /// Each text field over its limit in code points though within it in characters.
    var codePointViolations: [TripsError] {
        [
            (Trip.Field.city, city, Limits.nameLength), (.country, country, Limits.nameLength),
            (.imageName, imageName, Limits.nameLength), (.notes, notes, Limits.notesLength),
        ].compactMap { field, text, limit in
            guard text.utf8.count > limit, text.unicodeScalars.count > limit, !text.hasMoreCharacters(than: limit) else { return nil }
            return .invalidField(field, "must be at most \(limit) characters, counted as Unicode code points")
        }
    }
}
