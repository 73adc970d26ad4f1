import TripsDomain

/// Each trip's position key (`TripPositions`) as the `trips` table holds it, kept in memory
/// beside the list: the list has the table's order and this has its keys, so a write finds
/// where trips go, gaps and neighbours, without asking the table. Asking took two round trips
/// for each move, under the lock that orders the writers.
///
/// Kept exact by every change: the writer's own (`place`, `spreadAll`) and other instances',
/// whose transactions record the keys they gave (`trip_changes.positions`, read back as an
/// `Assignment`). A change recorded without them (a sort, or one written before they were
/// recorded) leaves the keys unknown until the next transaction reads them from the table.
package struct TripPositionKeys: Sendable, Equatable {
    private var keys = TripIDTable<Int64>()

    /// The keys one change gave trips, in the order it gave them.
    package struct Assignment: Sendable, Equatable {
        package var ids: [Trip.ID] = []
        package var keys: [Int64] = []

        package init(ids: [Trip.ID] = [], keys: [Int64] = []) {
            self.ids = ids
            self.keys = keys
        }
    }

    package init() {}

    /// The keys of rows read from the table.
    package init(_ rows: some Sequence<(id: Trip.ID, key: Int64)>) {
        var builder = TripIDTable<Int64>.Builder()
        for row in rows { _ = builder.insert(row.key, for: row.id) }
        keys = builder.finish()
    }

    /// The keys of a table built by id.
    package init(_ keys: TripIDTable<Int64>) {
        self.keys = keys
    }

    package subscript(id: Trip.ID) -> Int64? {
        get { keys[id] }
        set { keys[id] = newValue }
    }

    package mutating func apply(_ assignment: Assignment) {
        for (id, key) in zip(assignment.ids, assignment.keys) { keys[id] = key }
    }

    package mutating func remove(_ ids: some Sequence<Trip.ID>) {
        for id in ids { keys[id] = nil }
    }

    /// Keys for `block`, trips that stand together, in order, in `list` (the list after the
    /// change that put them there), in the gap between the trips on either side; when the gap
    /// is too narrow, for a window of neighbours around it too, four times wider each time,
    /// until `TripPositions.spread` finds room (a whole list always has it). Answers the keys
    /// that change: the block's, and the neighbours' the window moved.
    package func place(_ block: [Trip.ID], in list: TripList) throws(PostgresStoreError) -> Assignment {
        guard let first = block.first, let last = block.last else { return Assignment() }
        var before = list.ids(before: first).makeIterator()
        var after = list.ids(after: last).makeIterator()
        if let keys = TripPositions.keys(block.count, between: try key(before.next()), and: try key(after.next())) {
            return Assignment(ids: block, keys: keys)
        }
        var reach = 16
        while true {
            let neighboursBefore = Array(list.ids(before: first).prefix(reach))
            let neighboursAfter = Array(list.ids(after: last).prefix(reach))
            // A side with fewer neighbours than asked reaches the end of the list: keys may go past it.
            if let keys = TripPositions.spread(
                neighboursBefore.count + block.count + neighboursAfter.count,
                from: neighboursBefore.count == reach ? try key(neighboursBefore.last) : nil,
                to: neighboursAfter.count == reach ? try key(neighboursAfter.last) : nil)
            {
                let window = neighboursBefore.reversed() + block + neighboursAfter
                return changes(Assignment(ids: window, keys: keys))
            }
            reach *= 4
        }
    }

    /// Keys for the whole of `list`, spread out evenly in its order (after a sort).
    package static func spreadAll(_ list: TripList) throws(PostgresStoreError) -> Assignment {
        let ids = Array(list.trips.lazy.map(\.id))
        guard let keys = TripPositions.spread(ids.count, from: nil, to: nil) else { throw .damaged("no keys for \(ids.count) trips") }
        return Assignment(ids: ids, keys: keys)
    }

    /// The keys of `ids`, trips the list holds: each must have one.
    package func keys(of ids: some Sequence<Trip.ID>) throws(PostgresStoreError) -> [Int64] {
        try ids.map { (id) throws(PostgresStoreError) in try key(of: id) }
    }

    /// The key of `id`, a neighbour in the list (nil: none, the start or end of the list).
    private func key(_ id: Trip.ID?) throws(PostgresStoreError) -> Int64? {
        try id.map { (id) throws(PostgresStoreError) in try key(of: id) }
    }

    /// The key of `id`, a trip the list holds: it must have one.
    private func key(of id: Trip.ID) throws(PostgresStoreError) -> Int64 {
        guard let key = keys[id] else { throw .damaged("trip \(id) has no position key") }
        return key
    }

    /// The part of `assignment` that gives a trip a key it does not have already.
    private func changes(_ assignment: Assignment) -> Assignment {
        var changed = Assignment()
        for (id, key) in zip(assignment.ids, assignment.keys) where keys[id] != key {
            changed.ids.append(id)
            changed.keys.append(key)
        }
        return changed
    }
}

extension TripPositionKeys.Assignment {
    /// As `trip_changes.positions` holds it: `id:key` pairs, comma-separated (empty: the change
    /// gave no keys).
    package var text: String {
        zip(ids, keys).map { "\($0):\($1)" }.joined(separator: ",")
    }

    /// Reads what `text` writes from bytes lent for the call (a database row's); nil when they
    /// do not read. Byte by byte: split into substrings, each read as a number, it cost
    /// ~15,000 instructions a change, a fifth of what replaying another instance's create cost.
    package init?(bytes: UnsafeRawBufferPointer) {
        guard let pairs = Self.pairs(in: bytes.assumingMemoryBound(to: UInt8.self)) else { return nil }
        self.init(ids: pairs.ids, keys: pairs.keys)
    }

    private static func pairs(in bytes: UnsafeBufferPointer<UInt8>) -> (ids: [Trip.ID], keys: [Int64])? {
        var pairs: (ids: [Trip.ID], keys: [Int64]) = ([], [])
        guard !bytes.isEmpty else { return pairs }
        var index = 0
        while true {
            guard let id = integer(in: bytes, at: &index), index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let key = integer(in: bytes, at: &index) else { return nil }
            pairs.ids.append(Trip.ID(id))
            pairs.keys.append(key)
            if index == bytes.count { return pairs }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    /// An `Int64` as `text` writes it (an optional `-`, then digits) from `index` on, which
    /// it moves past; nil when there is none or it overflows.
    private static func integer(in bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Int64? {
        let isNegative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        let start = index
        // Gathered below zero, which reaches `Int64.min`.
        var negated: Int64 = 0
        while index < bytes.count, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            let (shifted, overflowed) = negated.multipliedReportingOverflow(by: 10)
            let (next, underflowed) = shifted.subtractingReportingOverflow(Int64(digit))
            guard !overflowed, !underflowed else { return nil }
            negated = next
            index += 1
        }
        guard index > start else { return nil }
        if isNegative { return negated }
        let (value, overflowed) = Int64(0).subtractingReportingOverflow(negated)
        return overflowed ? nil : value
    }
}
