import Foundation
import Synchronization
import TripsDomain

extension PostgresTripStore {
    /// Prunes the tables in the background, on a connection of its own, once
    /// `retention.interval` changes passed since the last time (and the last pruning is done).
    /// Runs on the writer thread (a test calls it between writes: the atomics let one
    /// pruning start, whichever thread asks).
    package func pruneIfDue() {
        let revision = state.withLock { $0.tables.list.revision }
        guard revision >= prunedAt.load(ordering: .relaxed) + retention.interval,
            isPruning.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        prunedAt.store(revision, ordering: .relaxed)
        DispatchQueue.global().async(group: pruning) { [self] in
            defer { isPruning.store(false, ordering: .releasing) }
            do {
                try Self.withTables(from: pool) { (tables) throws(PostgresStoreError) in
                    try tables.prune(retention, now: Int64(time(nil)))
                }
            } catch {
                log.warning("pruning old changes and idempotency keys failed: \(error)")
            }
        }
    }
}
