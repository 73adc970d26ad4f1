extension TripList {
    /// Applies a reorder difference. Returns whether the order changed; a difference
    /// that changes nothing is a no-op, not a new revision.
    ///
    /// The moving trips keep the order they have in the list (not the order of
    /// `sources`) and land in front of the destination, or at the end. When the
    /// destination is itself moving, the block lands where that trip stood: in front
    /// of the first trip after it that is not moving, or at the end.
    ///
    ///     // [1, 2, 3, 4, 5]
    ///     try list.move(ReorderDifference(sources: [4, 2], destination: .before(1)))
    ///     // [2, 4, 1, 3, 5]
    ///
    /// - Complexity: O(n) in the length of the list.
    @discardableResult
    public mutating func move(_ difference: ReorderDifference) throws(TripsError) -> Bool {
        guard !difference.sources.isEmpty else { throw .emptySources }
        let moving = try existing(difference.sources)
        var anchor: Trip.ID?
        if case .before(let target) = difference.destination {
            guard let targetPosition = trips.firstIndex(where: { $0.id == target }) else {
                throw .unknownDestination(target)
            }
            anchor = trips[targetPosition...].first { !moving.contains($0.id) }?.id
        }
        let block = trips.filter { moving.contains($0.id) }
        var reordered = trips.filter { !moving.contains($0.id) }
        let insertion = anchor.flatMap { id in reordered.firstIndex { $0.id == id } } ?? reordered.endIndex
        reordered.insert(contentsOf: block, at: insertion)
        guard reordered.map(\.id) != trips.map(\.id) else { return false }
        trips = reordered
        reindex()
        recordChange(of: [])
        return true
    }
}
