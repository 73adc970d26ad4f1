/// How much of the past the PostgreSQL tables keep, so that they do not grow without end:
/// the changes other instances catch up from (and `/trips/changes` resumes from), and the
/// idempotency keys of recent changes.
package struct PostgresRetention: Sendable {
    /// The newest changes kept in `trip_changes`. An instance further behind loads the whole
    /// list again, and its change feed says `reset`.
    package var changes: Int
    /// Keys are kept as `IdempotencyLedger` keeps them: every key of the last day, and at
    /// least the newest 100,000, within `keyBytes` of their stored answers.
    package var keys = IdempotencyLedger.minimumKept
    package var keySeconds = IdempotencyLedger.keptSeconds
    package var keyBytes = IdempotencyLedger.defaultByteLimit

    /// At least the history an instance keeps in memory, and 100,000 changes: minutes of
    /// writes at full speed, so that an instance restarted or cut off for that long still
    /// catches up change by change.
    package init(historyCapacity: Int, keyBytes: Int = IdempotencyLedger.defaultByteLimit) {
        changes = max(historyCapacity, 100_000)
        self.keyBytes = keyBytes
    }

    package init(changes: Int) {
        self.changes = changes
    }

    /// How many changes pass between two prunings: a tenth of what is kept.
    package var interval: UInt64 { UInt64(max(changes / 10, 1)) }
}
