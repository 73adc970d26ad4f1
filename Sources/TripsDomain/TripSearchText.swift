/// A trip's words as searches and favorite drops compare them (`String.searchFolded`),
/// folded once when the trip enters the list or changes: a search, or a drop of 100,000
/// names, then compares folded text without folding every trip again.
struct TripSearchText: Sendable, Hashable {
    let city: String
    let country: String
    let notes: String

    init(_ trip: Trip) {
        city = trip.city.searchFolded
        country = trip.country.searchFolded
        notes = trip.notes.searchFolded
    }

    /// The text of `trip`, reusing this one when the words it folds did not change (a
    /// favorite set, a price changed).
    func updated(for trip: Trip, from old: Trip) -> TripSearchText {
        trip.city == old.city && trip.country == old.country && trip.notes == old.notes ? self : TripSearchText(trip)
    }
}
