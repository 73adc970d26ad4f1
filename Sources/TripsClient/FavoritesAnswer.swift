import TripsDomain

/// What a favorite drop answers: the trips that newly became favorites (empty when the
/// favorites did not change: no success feedback then) and the favorites now, in list order.
public struct FavoritesAnswer: Sendable, Hashable {
    public var added: [Trip.ID]
    public var favorites: [Trip]

    public init(added: [Trip.ID], favorites: [Trip]) {
        self.added = added
        self.favorites = favorites
    }
}
