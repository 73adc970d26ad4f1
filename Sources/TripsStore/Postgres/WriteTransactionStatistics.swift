/// Where a PostgreSQL store's write transactions spend their time, for the metrics. A write
/// transaction holds the `trips_state` row's lock from its first statement until PostgreSQL
/// commits it, and every other instance's writer waits that long: with several instances
/// taking writes, the phases after `lock` (which end a little later, once this instance has
/// read `COMMIT`'s answer), summed over the instances, bound how many transactions all of
/// them make in a second (README, PostgreSQL).
package struct WriteTransactionStatistics: Sendable, Equatable {
    /// A write transaction's steps, in order.
    package enum Phase: Int, CaseIterable, Sendable {
        /// From `BEGIN` sent to the locked state row and the changes after it read: mostly the
        /// wait for the lock, which other instances' transactions hold.
        case lock
        /// Replaying the changes other instances committed, read with the lock.
        case catchUp
        /// Planning this instance's changes and writing their statements.
        case plan
        /// From those statements sent to `COMMIT` answered: the database's writing, its flush,
        /// and the round trip.
        case commit

        /// The name the metrics label it with.
        package var label: String {
            switch self {
            case .lock: "lock"
            case .catchUp: "catch_up"
            case .plan: "plan"
            case .commit: "commit"
            }
        }
    }

    /// Write transactions committed.
    package var transactions: UInt64 = 0
    /// Of them, append transactions (`PostgresTripTables.commitAppends`): one round trip, in
    /// which PostgreSQL alone holds the lock.
    package var appendTransactions: UInt64 = 0
    /// Changes they made (a change refused in one, or answered by its idempotency key, is
    /// not counted).
    package var changes: UInt64 = 0
    /// Other instances' changes they replayed under the lock.
    package var replayed: UInt64 = 0
    /// Seconds spent in each phase (`Phase.rawValue`), summed over the transactions.
    package var seconds = Array(repeating: 0.0, count: Phase.allCases.count)

    package init() {}

    /// Counts one committed transaction.
    package mutating func record(_ timing: WriteTransactionTiming) {
        transactions &+= 1
        if timing.isAppends { appendTransactions &+= 1 }
        changes &+= UInt64(timing.changes)
        replayed &+= UInt64(timing.replayed)
        for phase in Phase.allCases { seconds[phase.rawValue] += timing.seconds(in: phase) }
    }
}
