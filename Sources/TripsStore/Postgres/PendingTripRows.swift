import TripsDomain

/// The `trips` rows a transaction changes, gathered change by change and written at its end
/// (`PostgresTripTables.write`): a statement per kind, whatever the transaction holds, each
/// row with its last values. Trips the list no longer holds at the end (added and deleted in
/// the same transaction) are left out there.
package struct PendingTripRows: Sendable {
    /// Trips added in the transaction, in the order they were added.
    package private(set) var added: [Trip.ID] = []
    /// Trips that had rows before the transaction and whose fields changed, in the order they
    /// first changed: every column is written.
    package private(set) var changed: [Trip.ID] = []
    /// Trips that had rows before the transaction and only took new position keys (a move, a
    /// sort, a window spread out): their positions alone are written, which for a sort of a
    /// long list is a small part of its rows' bytes.
    package var moved: [Trip.ID] { placed.filter { !isChanged.contains($0) } }
    /// Trips that had rows before the transaction and were deleted.
    package private(set) var deleted: [Trip.ID] = []
    private var placed: [Trip.ID] = []
    private var isAdded = Set<Trip.ID>()
    private var isChanged = Set<Trip.ID>()
    private var isPlaced = Set<Trip.ID>()

    package init() {}

    package mutating func add(_ ids: [Trip.ID]) {
        added += ids
        isAdded.formUnion(ids)
    }

    package mutating func change(_ ids: [Trip.ID]) {
        for id in ids where !isAdded.contains(id) && isChanged.insert(id).inserted { changed.append(id) }
    }

    package mutating func place(_ ids: [Trip.ID]) {
        for id in ids where !isAdded.contains(id) && isPlaced.insert(id).inserted { placed.append(id) }
    }

    package mutating func delete(_ ids: [Trip.ID]) {
        deleted += ids.filter { !isAdded.contains($0) }
    }
}
