import Dispatch
import Synchronization
import TripsDomain

/// Builds the list and its position keys from trips handed over in batches, on a thread of
/// its own, while the caller reads the next rows: at start-up, reading a million rows
/// (decoding, making each trip) and building the list from them (its tables, folded words,
/// counts) each take about as long, and each gets a core. PostgreSQL, making the rows, is
/// the third worker; with two cores the three share them.
///
///     let assembly = TripListAssembly(revision: 42, lastIssuedID: 9)
///     assembly.add([(trip, version: 40, key: 65_536)])
///     let (list, keys) = try assembly.finish()
///
/// At most `backlog` batches wait, so a reader faster than the builder waits rather than
/// holding the rows twice. `finish` must be called once, also when reading failed: it is
/// what lets the thread end.
final class TripListAssembly: Sendable {
    /// One trip as read, with its version and position key.
    typealias Row = (trip: Trip, version: UInt64, key: Int64)

    /// Batches handed over and not taken yet; nil marks the end.
    private let waiting = Mutex<[[Row]?]>([])
    private let batchWaits = DispatchSemaphore(value: 0)
    private let roomForBatch: DispatchSemaphore
    private let built = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<(TripList, TripPositionKeys), PostgresStoreError>?>(nil)

    init(revision: UInt64, lastIssuedID: Int, backlog: Int = 8) {
        roomForBatch = DispatchSemaphore(value: backlog)
        DispatchQueue.global().async { [self] in
            let outcome = build(revision: revision, lastIssuedID: lastIssuedID)
            result.withLock { $0 = outcome }
            built.signal()
        }
    }

    /// Hands over the next trips, in the list's order; waits while `backlog` batches wait.
    func add(_ batch: [Row]) {
        guard !batch.isEmpty else { return }
        hand(batch)
    }

    /// The list and keys built from every trip handed over, once the last is in; a trip id
    /// that came twice, or one or a version past what the state row says was issued, is
    /// `.damaged`.
    func finish() throws(PostgresStoreError) -> (TripList, TripPositionKeys) {
        hand(nil)
        built.wait()
        guard let outcome = result.withLock({ $0.take() }) else { preconditionFailure("an assembly was finished twice") }
        return try outcome.get()
    }

    private func hand(_ batch: [Row]?) {
        roomForBatch.wait()
        waiting.withLock { $0.append(batch) }
        batchWaits.signal()
    }

    /// The builder's thread: takes batches until the end; after a flaw, only takes them.
    private func build(revision: UInt64, lastIssuedID: Int) -> Result<(TripList, TripPositionKeys), PostgresStoreError> {
        var restoration = TripList.Restoration(expectedCount: 0, revision: revision, lastIssuedID: lastIssuedID)
        var keys = TripIDTable<Int64>.Builder()
        var failure: PostgresStoreError?
        while true {
            batchWaits.wait()
            let batch = waiting.withLock { $0.removeFirst() }
            roomForBatch.signal()
            guard let batch else { break }
            guard failure == nil else { continue }
            for row in batch {
                // The state row says what ids and revisions were ever issued: a row past them is
                // damage, as in a snapshot.
                guard row.trip.id >= 1, row.trip.id <= lastIssuedID, row.version <= revision else {
                    failure = .damaged(
                        "trip \(row.trip.id) at version \(row.version) is past the last id issued (\(lastIssuedID)) or revision (\(revision))"
                    )
                    break
                }
                guard restoration.append(row.trip, version: row.version) else {
                    failure = .damaged("trip \(row.trip.id) appears twice")
                    break
                }
                _ = keys.insert(row.key, for: row.trip.id)
            }
        }
        if let failure { return .failure(failure) }
        return .success((restoration.finish(), TripPositionKeys(keys.finish())))
    }
}
