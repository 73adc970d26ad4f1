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
    /// - Complexity: O(k·√n) for k sources in a list of n trips (`ListOrder`); O(n) when
    ///   more than an eighth of the list moves.
    @discardableResult
    public mutating func move(_ difference: ReorderDifference) throws(TripsError) -> Bool {
        guard !difference.sources.isEmpty else { throw .emptySources }
        let moving = try existing(difference.sources)
        var anchor: Trip.ID?
        if case .before(let target) = difference.destination {
            guard self[target] != nil else { throw .unknownDestination(target) }
            // Walks at most past the moving trips.
            anchor = firstID(from: target, skipping: moving)
        }
        return reorder(moving, before: anchor)
    }
}
