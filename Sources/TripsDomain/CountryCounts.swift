/// How many trips name each country, spelled as stored: kept by `TripList` as trips come, go
/// and change, so how many countries a list holds is known without a pass over it.
public struct CountryCounts: Sendable, Hashable {
    private var trips: [String: Int] = [:]

    public init() {}

    /// How many countries (spellings) the trips name.
    public var count: Int { trips.count }

    /// How many trips name `country`, spelled exactly so.
    public subscript(country: String) -> Int { trips[country] ?? 0 }

    /// Counts a trip to `country` in.
    public mutating func add(_ country: String) {
        trips[country, default: 0] += 1
    }

    /// Counts a trip to `country` out again, exactly undoing `add(country)`.
    public mutating func remove(_ country: String) {
        guard let count = trips[country] else { return }
        trips[country] = count > 1 ? count - 1 : nil
    }
}
