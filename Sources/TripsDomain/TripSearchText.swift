/// A trip's words as searches and favorite drops compare them (`String.searchFolded`),
/// folded once when the trip enters the list or changes: a search, or a drop of 100,000
/// names, then compares folded text without folding every trip again.
///
/// Notes in ASCII (most notes) are not kept twice: a search compares them with its folded
/// query case-insensitively, byte by byte, which is what folding ASCII does. Only notes with
/// other characters are kept folded (with every note folded, the text cost 330 bytes a trip
/// at 200,000 trips of 60-character notes; without, about 90), behind one reference: 8 bytes
/// a trip for the many without, not the 16 of an optional `String`.
package struct TripSearchText: Sendable, Hashable {
    let city: String
    let country: String
    /// The notes folded, when they are not all ASCII.
    private let foldedNotes: FoldedNotes?

    private final class FoldedNotes: Sendable, Hashable {
        let text: String

        init(_ text: String) { self.text = text }

        static func == (left: FoldedNotes, right: FoldedNotes) -> Bool { left.text == right.text }
        func hash(into hasher: inout Hasher) { hasher.combine(text) }
    }

    init(_ trip: Trip) {
        city = trip.city.searchFolded
        country = trip.country.searchFolded
        foldedNotes = trip.notes.isAllASCII ? nil : FoldedNotes(trip.notes.searchFolded)
    }

    /// The text of `trip`, reusing this one when the words it folds did not change (a
    /// favorite set, a price changed).
    func updated(for trip: Trip, from old: Trip) -> TripSearchText {
        trip.city == old.city && trip.country == old.country && trip.notes == old.notes ? self : TripSearchText(trip)
    }

    /// Whether `trip`'s notes (this text's trip) contain `search`, a folded query.
    func notes(of trip: Trip, contain search: String) -> Bool {
        if let foldedNotes { return foldedNotes.text.contains(search) }
        var (notes, search) = (trip.notes, search)
        return notes.withUTF8 { haystack in
            search.withUTF8 { needle in
                // Folded ASCII is ASCII: a query with other characters is in no ASCII note.
                guard needle.allSatisfy({ $0 < 0x80 }), needle.count <= haystack.count else { return false }
                func lowered(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
                return (0...(haystack.count - needle.count)).contains { start in
                    needle.indices.allSatisfy { lowered(haystack[start + $0]) == needle[$0] }
                }
            }
        }
    }
}
