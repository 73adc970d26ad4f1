/// What the lesson's `TripSummary` shows of some trips: how many there are, how many nights
/// they add up to, and how many of them are favorites.
public struct TripTotals: Sendable, Hashable {
    public var trips: Int
    public var nights: Int
    public var favorites: Int

    public init(trips: Int = 0, nights: Int = 0, favorites: Int = 0) {
        self.trips = trips
        self.nights = nights
        self.favorites = favorites
    }

    /// The totals of `trips`, counted in one pass.
    ///
    /// - Complexity: O(n), reading two fields of each trip.
    public init(_ trips: some Sequence<Trip>) {
        self.init()
        for trip in trips { add(trip) }
    }

    /// Counts `trip` in. The sums wrap rather than trap: nights come from stored data, and a
    /// wrong total is better than a crash (a trip's nights are at most 365 anyway).
    public mutating func add(_ trip: Trip) {
        trips &+= 1
        nights &+= trip.nights
        if trip.isFavorite { favorites &+= 1 }
    }

    /// Counts `trip` out again, exactly undoing `add(trip)`.
    public mutating func remove(_ trip: Trip) {
        trips &-= 1
        nights &-= trip.nights
        if trip.isFavorite { favorites &-= 1 }
    }
}
