import TripsDomain

extension Array where Element == Trip {
    /// Applies a change the feed told, as the server applied it to its list.
    mutating func apply(_ event: TripChangeEvent) {
        switch event {
        case .created(_, let trips, let before):
            insert(trips, before: before)
        case .updated(_, let trip):
            if let index = firstIndex(where: { $0.id == trip.id }) { self[index] = trip }
        case .deleted(_, let ids):
            let doomed = Set(ids)
            removeAll { doomed.contains($0.id) }
        case .reordered(_, let difference):
            move(difference.sources, to: difference.destination)
        case .sorted(_, _, let order):
            let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            self = enumerated().sorted { (rank[$0.element.id] ?? Int.max, $0.offset) < (rank[$1.element.id] ?? Int.max, $1.offset) }
                .map(\.element)
        case .favorites(_, let added, let removed):
            setFavorite(added, true)
            setFavorite(removed, false)
        case .reset:
            break
        }
    }

    /// Inserts trips the list does not hold yet in front of `before` (nil, or a trip it
    /// lacks: at the end).
    mutating func insert(_ trips: [Trip], before: Trip.ID?) {
        let held = Set(map(\.id))
        let new = trips.filter { !held.contains($0.id) }
        let index = before.flatMap { id in firstIndex { $0.id == id } } ?? endIndex
        insert(contentsOf: new, at: index)
    }

    /// Moves trips by the rule of `PATCH /trips` (`TripList.move`): they keep their order and
    /// land in front of the destination, or, when it is moving too, in front of the first
    /// trip after it that is not; ids the list lacks are skipped.
    ///
    ///     // [1, 2, 3, 4, 5]
    ///     trips.move([4, 2], to: .before(1))   // [2, 4, 1, 3, 5]
    ///
    /// - Complexity: O(n).
    mutating func move(_ sources: [Trip.ID], to destination: ReorderDifference.Destination) {
        let moving = Set(sources)
        var anchor: Trip.ID?
        if case .before(let target) = destination, let start = firstIndex(where: { $0.id == target }) {
            anchor = self[start...].first { !moving.contains($0.id) }?.id
        }
        let block = filter { moving.contains($0.id) }
        removeAll { moving.contains($0.id) }
        let index = anchor.flatMap { id in firstIndex { $0.id == id } } ?? endIndex
        insert(contentsOf: block, at: index)
    }

    /// Sets `isFavorite` of these trips.
    mutating func setFavorite(_ ids: [Trip.ID], _ isFavorite: Bool) {
        let chosen = Set(ids)
        for index in indices where chosen.contains(self[index].id) { self[index].isFavorite = isFavorite }
    }
}
