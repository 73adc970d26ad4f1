extension TripList {
    /// The first `limit` countries the trips name, in first-seen order and each spelling once,
    /// as the lesson's FilterBar lists them.
    ///
    /// - Complexity: O(k) trips read, k being how far down the list the last of them is first
    ///   named: the pass stops once it has `limit` of them, or every one the list holds
    ///   (`countries`, kept as the list changes). A list of a few countries names them all near
    ///   its top; at worst (a country named by the last trip alone) it reads the whole list.
    public func firstCountries(limit: Int) -> [String] {
        let wanted = min(max(limit, 0), countries.count)
        var found: [String] = []
        guard wanted > 0 else { return found }
        found.reserveCapacity(wanted)
        var seen = Set<String>(minimumCapacity: wanted)
        for trip in trips where seen.insert(trip.country).inserted {
            found.append(trip.country)
            if found.count == wanted { break }
        }
        return found
    }
}
