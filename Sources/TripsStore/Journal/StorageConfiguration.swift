/// When the journal is compacted into a snapshot, and how much of the past a store keeps.
package struct StorageConfiguration: Sendable, Hashable {
    /// Compact once the journal holds more bytes than this. Default: 4 MiB.
    package var compactionBytes: Int
    /// Compact once the journal holds more records than this. Default: 10,000.
    package var compactionRecords: Int
    /// Whether the journal must also outgrow the snapshot it continues (in bytes, or in
    /// records against trips) before it is compacted, as Redis rewrites its AOF at 100%
    /// growth. Then a large list is rewritten in proportion to the changes made, not every
    /// 10,000 of them, and start-up still replays at most about as much as it loads.
    /// Default: true.
    package var growsWithSnapshot: Bool

    /// How many of the latest changes the change feed can replay to a client that resumes,
    /// across restarts and compactions. Default: 10,000.
    package var historyCapacity: Int

    /// The most bytes of idempotency keys and their answers kept; past it the oldest are
    /// forgotten. Default: 64 MiB (`IdempotencyLedger.defaultByteLimit`).
    package var idempotencyBytes: Int

    package init(
        compactionBytes: Int = 4 << 20, compactionRecords: Int = 10_000, growsWithSnapshot: Bool = true, historyCapacity: Int = 10_000,
        idempotencyBytes: Int = IdempotencyLedger.defaultByteLimit
    ) {
        self.compactionBytes = compactionBytes
        self.compactionRecords = compactionRecords
        self.growsWithSnapshot = growsWithSnapshot
        self.historyCapacity = historyCapacity
        self.idempotencyBytes = idempotencyBytes
    }

    /// An empty ledger with this configuration's byte cap.
    package var emptyLedger: IdempotencyLedger { IdempotencyLedger(byteLimit: idempotencyBytes) }
}
