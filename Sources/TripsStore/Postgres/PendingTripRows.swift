import TripsDomain

/// The `trips` rows a transaction changes, gathered change by change and written at its end
/// (`PostgresTripTables.write`): a statement per kind, whatever the transaction holds, each
/// row with its last values, and none for a trip added and deleted in the same transaction.
package struct PendingTripRows: Sendable {
    /// Trips added in the transaction, in the order they were added.
    package private(set) var added: [Trip.ID] = []
    /// Trips that had rows before the transaction and changed (fields or position), in the
    /// order they first changed.
    package private(set) var changed: [Trip.ID] = []
    package private(set) var deleted: [Trip.ID] = []
    private var isAdded = Set<Trip.ID>()
    private var isChanged = Set<Trip.ID>()

    package init() {}

    package mutating func add(_ ids: [Trip.ID]) {
        added += ids
        isAdded.formUnion(ids)
    }

    package mutating func change(_ ids: [Trip.ID]) {
        for id in ids where !isAdded.contains(id) && isChanged.insert(id).inserted { changed.append(id) }
    }

    package mutating func delete(_ ids: [Trip.ID]) {
        for id in ids {
            if isAdded.remove(id) != nil {
                added.removeAll { $0 == id }
            } else {
                deleted.append(id)
            }
        }
    }
}
