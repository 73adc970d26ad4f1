/// Where trips stand in the list as PostgreSQL keeps it: one `bigint` key per trip, in list
/// order, with gaps between them, so that adding or moving k trips writes k rows (list
/// labelling, as fractional indexing does with strings).
///
/// New keys go into the gap where the trips land. When a gap is too narrow for them, the
/// caller takes a window of neighbours around it, wider each time, until `spread` finds room
/// to space the window out again; a whole list is always wide enough. Appends at either end
/// never run out (2^47 appends of `spacing` before the key space ends).
package enum TripPositions {
    /// The distance between neighbours when keys are handed out fresh.
    package static let spacing: Int64 = 1 << 16
    /// A spread window must leave at least this much between neighbours, so that the next
    /// few insertions there find room without spreading again.
    package static let minimumSpreadStep: Int64 = 1 << 10

    /// `count` keys, in order, strictly between `low` and `high` (nil: the start or the end
    /// of the list), spread evenly; nil when the gap has too little room.
    package static func keys(_ count: Int, between low: Int64?, and high: Int64?) -> [Int64]? {
        guard count > 0 else { return [] }
        switch (low, high) {
        case (nil, nil):
            return spread(count, from: nil, to: nil)
        case (let low?, nil):
            return steps(count, from: low, by: spacing, skippingFirst: true)
        case (nil, let high?):
            return steps(count, from: high, by: -spacing, skippingFirst: true)?.reversed()
        case (let low?, let high?):
            let (room, overflow) = high.subtractingReportingOverflow(low)
            guard !overflow, room > Int64(count) else { return nil }
            let step = room / Int64(count + 1)
            guard step > 0 else { return nil }
            return (1...count).map { low + step * Int64($0) }
        }
    }

    /// `count` keys, in order, for a window whose first key may be `low` and last `high`
    /// (nil: the window reaches that end of the list, and keys may go past it), at least
    /// `minimumSpreadStep` apart; nil when the window is too narrow.
    package static func spread(_ count: Int, from low: Int64?, to high: Int64?) -> [Int64]? {
        guard count > 0 else { return [] }
        switch (low, high) {
        case (nil, nil):
            return steps(count, from: 0, by: spacing, skippingFirst: true)
        case (let low?, nil):
            return steps(count, from: low, by: spacing, skippingFirst: false)
        case (nil, let high?):
            return steps(count, from: high, by: -spacing, skippingFirst: false)?.reversed()
        case (let low?, let high?):
            guard count > 1 else { return [low] }
            let (room, overflow) = high.subtractingReportingOverflow(low)
            guard !overflow else { return nil }
            let step = room / Int64(count - 1)
            guard step >= minimumSpreadStep else { return nil }
            return (0..<count).map { low + step * Int64($0) }
        }
    }

    /// `count` keys `step` apart from `start` (past it when `skippingFirst`); nil past the
    /// ends of `Int64`.
    private static func steps(_ count: Int, from start: Int64, by step: Int64, skippingFirst: Bool) -> [Int64]? {
        let first = skippingFirst ? 1 : 0
        var keys: [Int64] = []
        keys.reserveCapacity(count)
        for index in first..<first + count {
            let (offset, multiplied) = step.multipliedReportingOverflow(by: Int64(index))
            let (key, added) = start.addingReportingOverflow(offset)
            guard !multiplied, !added else { return nil }
            keys.append(key)
        }
        return keys
    }
}
