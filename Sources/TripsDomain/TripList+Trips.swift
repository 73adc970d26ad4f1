extension TripList {
    /// Trips of a list in stored order (all of them, or those after one): a view that
    /// shares the list's storage, so taking it copies nothing.
    public struct Trips: Sequence, Sendable {
        fileprivate let entries: TripIDTable<Entry>
        fileprivate let ids: ListOrder.Suffix
        /// How many trips the view holds.
        public let count: Int

        package init(entries: TripIDTable<Entry>, ids: ListOrder.Suffix, count: Int) {
            self.entries = entries
            self.ids = ids
            self.count = count
        }

        public var isEmpty: Bool { count == 0 }
        public var underestimatedCount: Int { count }

        public func makeIterator() -> Iterator {
            Iterator(entries: entries, ids: ids.makeIterator())
        }

        public struct Iterator: IteratorProtocol, Sendable {
            fileprivate let entries: TripIDTable<Entry>
            fileprivate var ids: ListOrder.Suffix.Iterator

            public mutating func next() -> Trip? {
                guard let id = ids.next() else { return nil }
                guard let entry = entries[id] else { preconditionFailure("trip \(id) is in the order but not in the list") }
                return entry.trip
            }
        }
    }
}

extension TripList.Trips {
    /// The trips, in order, for which `isIncluded` holds, given each with its folded text.
    package func filteringWithText(_ isIncluded: (Trip, TripSearchText) -> Bool) -> [Trip] {
        var shown: [Trip] = []
        for id in ids {
            guard let entry = entries[id] else { preconditionFailure("trip \(id) is in the order but not in the list") }
            if isIncluded(entry.trip, entry.text) { shown.append(entry.trip) }
        }
        return shown
    }
}
