import Foundation
import Synchronization
import TripsDomain
import TripsPostgres

/// The trip list kept in PostgreSQL, so that several servers can share it: the same surface
/// as `TripStore`, with the database in charge instead of a data folder.
///
/// Reads see the list in memory, as of the last revision this instance saw. A write goes to
/// a writer thread of its own, which takes every write waiting and makes them in one
/// transaction (`PostgresTripTables.commit`): planned (`ChangePlanner`) against the tables'
/// newest list, so a
/// precondition holds inside the transaction even with other instances writing. A follower
/// thread `LISTEN`s for other instances' changes (and looks every `pollInterval` anyway, in
/// case a notification was lost with a connection) and has the writer catch up on them; the
/// change feed hears every change, whichever instance made it.
///
/// Every `retention.interval` changes the writer prunes old changes and idempotency keys
/// (`PostgresRetention`); an instance that falls further behind loads the list again, and its
/// change feed says `reset`.
///
/// Photos are served from memory (`PhotoCache`: those this instance wrote or read, up to a
/// cap), and read from `trip_photos` on a miss, whichever instance wrote them.
///
/// The threads take their connections from a pool of four (`PostgresConnectionPool`): the
/// writer one per transaction, the follower one to listen on, the pruning one now and then,
/// and a photo read on a cache miss one.
/// With the database unreachable, writes fail at once with `.database` (503, `Retry-After`)
/// while reads go on from memory; the pool reconnects, backing off from `retryDelay` up to
/// a quarter of a second. A transaction the server ended uncommitted by restarting is made
/// once more on a new connection before it is refused.
package final class PostgresTripStore: Sendable {
    package let pool: PostgresConnectionPool
    package let retention: PostgresRetention
    package let log: any StorageLog
    package let state: Mutex<State>
    /// The writer's own copy of the state: what its transactions plan against and change in
    /// place. Once one commits, the copy is swapped with `state.tables` (what reads see), and
    /// the one swapped out is brought to the same revision by the same steps
    /// (`PostgresTripTables.State.redo`), so a transaction copies neither the list nor the
    /// history. After a failure it becomes a copy of what reads see, which is what committed.
    /// Taken by the writer thread alone.
    package let writerState: Mutex<PostgresTripTables.State>
    package let writer = WriterThread()
    package let followerStopped = DispatchSemaphore(value: 0)
    /// Cuts the follower's wait before reconnecting short when the store closes, and ends its
    /// rest when the writer goes to sleep (`State.followerRests`).
    package let followerWake = DispatchSemaphore(value: 0)
    /// The pruning under way, if any, which `close` waits for.
    package let pruning = DispatchGroup()
    package let isPruning = Atomic(false)
    /// The revision at which the writer last started a pruning (or the store started).
    package let prunedAt: Atomic<UInt64>
    /// How long the follower waits for a notification before it looks for changes anyway.
    package let pollInterval: Duration
    /// How long the writer must have slept before the follower, resting, listens again
    /// (`rest(on:)`): longer than the pause between two of its transactions under load, in
    /// which the clients it answered send their next changes.
    package let listenAfterIdle: Duration
    /// How long the writer holds a batch back at most (`BatchGathering`); zero: never.
    package let batchPatience: Duration
    /// Wakes the writer holding a batch back once enough writes wait (`BatchGathering.arrived`).
    package let gathered = DispatchSemaphore(value: 0)
    /// The photos' bytes kept in memory.
    let photoCache: PhotoCache

    /// The writer's, the follower's, one for pruning and one for reading photos.
    package static let connectionCount = 4
    /// How long a thread waits for a connection while all are leased; with one per thread,
    /// only while another thread's is being closed.
    package static let leaseTimeout: Duration = .seconds(5)
    /// How many times a transaction that lost a race (`PostgresStoreError.Handling.retry`) is
    /// run before the writes in it are refused.
    package static let attempts = 3

    package struct State: ~Copyable {
        /// What reads see, and what the next transaction catches up from.
        package var tables: PostgresTripTables.State
        package var listener: (@Sendable (ChangeEvent) -> Void)?
        package var queue: [PendingWrite] = []
        package var needsCatchUp = false
        var writerWake = WriterThread.Wake()
        package var isClosing = false
        /// The last write failed, and none has succeeded since.
        package var lastWriteFailure: StorageError?
        /// The follower cannot reach the database now: the next write would fail too.
        package var unreachable: StorageError?
        package var statistics = StoreStatistics()
        /// The idempotency keys of writes queued or being written, with their requests'
        /// fingerprints: a retry meanwhile is told 409 (another request with the key 422),
        /// as the journal store tells it, rather than waiting for the first to commit.
        package var keysInFlight: [IdempotencyLedger.Key: String] = [:]
        /// Whether the writer has had writes since it last went to sleep. Each of its
        /// transactions catches up on the other instances' changes, so while it stays busy the
        /// follower need not hear of them (`runFollower`).
        package var isWriterBusy = false
        /// The follower stopped listening because the writer is busy, and waits on
        /// `followerWake`, which the writer signals (once) when it has slept for
        /// `listenAfterIdle` (`writerStayedIdle`).
        package var followerRests = false
        /// How many times the follower rested.
        package var followerRestCount = 0
        /// How many times the follower sent `LISTEN`.
        package var followerListenCount = 0
        /// Whether the writer holds its next batch back for more writes, and how long.
        package var gathering = BatchGathering()

        /// The writes waiting, which leave the queue.
        mutating func takeQueue() -> [PendingWrite] {
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }

    /// A write waiting for the writer thread, which plans it in its transaction.
    package struct PendingWrite: Sendable {
        package let request: ChangeRequest
        package let completion: @Sendable (Result<Mutation, MutationError>) -> Void
    }

    /// What the writer does when woken.
    package enum WriterWork {
        case write([PendingWrite])
        /// Another instance wrote: bring the list up to the tables.
        case catchUp
    }

    /// Connects, brings the schema up to date (`SchemaMigrator`), seeds new tables with the
    /// sample trips and their photos (unless `seedSamples` is false), loads the list and starts the writer and
    /// follower threads.
    package init(
        connection: PostgresConnectionConfiguration, seedSamples: Bool = true, configuration: StorageConfiguration = StorageConfiguration(),
        retention: PostgresRetention? = nil, pollInterval: Duration = .seconds(1), listenAfterIdle: Duration = .milliseconds(2),
        retryDelay: Duration = .milliseconds(100), batchPatience: Duration = BatchGathering.defaultLimit,
        photoCacheBytes: Int = PhotoCache.defaultCapacity, log: any StorageLog = ConsoleLog()
    ) throws(PostgresStoreError) {
        let pool = PostgresConnectionPool(connection, capacity: Self.connectionCount, retryDelay: retryDelay)
        self.pool = pool
        self.retention =
            retention ?? PostgresRetention(historyCapacity: configuration.historyCapacity, keyBytes: configuration.idempotencyBytes)
        self.pollInterval = pollInterval
        self.listenAfterIdle = listenAfterIdle
        self.batchPatience = batchPatience
        photoCache = PhotoCache(capacity: photoCacheBytes)
        self.log = log
        do throws(PostgresStoreError) {
            let loaded = try Self.withTables(from: pool) { (tables) throws(PostgresStoreError) in
                do throws(SchemaMigrationError) {
                    _ = try SchemaMigrator.migrate(tables.connection)
                } catch {
                    throw PostgresStoreError.migration(error)
                }
                if seedSamples { try tables.seed(SampleTrips.list, photos: SampleTrips.photos) }
                return try tables.load(historyCapacity: configuration.historyCapacity, ledger: configuration.emptyLedger)
            }
            var initial = State(tables: loaded)
            initial.statistics.writeTransactions = WriteTransactionStatistics()
            state = Mutex(initial)
            writerState = Mutex(loaded)
            prunedAt = Atomic(loaded.list.revision)
        } catch {
            pool.close()
            throw error
        }
        writer.start(
            named: "trips-postgres-writer", idle: WriterThread.Idle(after: listenAfterIdle) { [self] in writerStayedIdle() },
            next: { [self] in nextStep() },
            perform: { [self] work in
                switch work {
                case .write(let batch): write(batch)
                case .catchUp: catchUp()
                }
                pruneIfDue()
            })
        let follower = Thread { [self] in runFollower() }
        follower.name = "trips-postgres-follower"
        follower.start()
    }

    // MARK: What the API uses (as `TripStore`)

    package func read<T>(_ body: (borrowing TripList) throws -> T) rethrows -> T {
        try state.withLock { try body($0.tables.list) }
    }

    package var list: TripList {
        read { copy $0 }
    }

    package var statistics: (store: StoreStatistics, trips: Int, revision: UInt64) {
        state.withLock { ($0.statistics.countingPhotos(of: $0.tables.list), $0.tables.list.count, $0.tables.list.revision) }
    }

    /// Why a write would fail now: the last one failed, or the database cannot be reached
    /// (`/readyz` says not ready, so a balancer sends requests to another instance).
    package var writeFailure: StorageError? {
        state.withLock { $0.lastWriteFailure ?? $0.unreachable }
    }

    package func withHistory<T>(_ body: (ChangeHistory) throws -> T) rethrows -> T {
        try state.withLock { try body($0.tables.history) }
    }

    package func setChangeListener(_ listener: @escaping @Sendable (ChangeEvent) -> Void) {
        state.withLock { $0.listener = listener }
    }

    /// Queues a change for the writer, which plans it in its transaction against the newest
    /// list; `completion` runs on the writer thread once the transaction committed (or failed).
    package func submit(_ request: ChangeRequest, completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void) {
        let (refusal, wake) = state.withLock { state -> (MutationError?, Bool) in
            guard !state.isClosing else { return (.storage(.closed), false) }
            if let idempotency = request.idempotency {
                if let planned = state.keysInFlight[idempotency.key] {
                    return (planned == idempotency.fingerprint ? .idempotencyInFlight : .idempotencyConflict, false)
                }
                state.keysInFlight[idempotency.key] = idempotency.fingerprint
            }
            state.queue.append(PendingWrite(request: request, completion: completion))
            if state.gathering.arrived(queued: state.queue.count) { gathered.signal() }
            return (nil, state.writerWake.request())
        }
        if let refusal { completion(.failure(refusal)) }
        if wake { writer.wake() }
    }

    /// Finishes the writes waiting, stops both threads and closes their connections. Idempotent.
    package func close() {
        let (isFirstClose, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.isClosing else { return (false, false) }
            state.isClosing = true
            return (true, state.writerWake.request())
        }
        guard isFirstClose else { return }
        if wake { writer.wake() }
        followerWake.signal()
        writer.waitUntilStopped()
        followerStopped.wait()
        pruning.wait()
        pool.close()
    }

    /// Runs `body` on the tables over a connection leased from `pool`, and gives it back.
    package static func withTables<T>(from pool: PostgresConnectionPool, _ body: (PostgresTripTables) throws(PostgresStoreError) -> T)
        throws(PostgresStoreError) -> T
    {
        let connection: PostgresConnection
        do {
            connection = try pool.lease(waitingUpTo: leaseTimeout)
        } catch {
            throw .connections(error)
        }
        defer { pool.giveBack(connection) }
        return try body(PostgresTripTables(connection: connection))
    }

    // MARK: The writer thread

    /// Takes every write waiting, or a catching up, or stops once closing with neither left,
    /// or sleeps.
    package func nextStep() -> WriterThread.Step<WriterWork> {
        state.withLock { state in
            if !state.queue.isEmpty {
                state.isWriterBusy = true
                return .work(.write(state.takeQueue()))
            }
            if state.needsCatchUp {
                state.needsCatchUp = false
                return .work(.catchUp)
            }
            if state.isClosing { return .stop }
            state.writerWake.sleep()
            state.isWriterBusy = false
            state.gathering.writerSlept()
            return .sleep
        }
    }

    /// The writer has slept for `listenAfterIdle`: a follower resting for it listens again.
    /// (Told at once, it would be woken at every pause between batches under load, only to
    /// find the writer busy again.)
    package func writerStayedIdle() {
        let wake = state.withLock { state in
            guard state.followerRests, !state.isWriterBusy else { return false }
            state.followerRests = false
            return true
        }
        if wake { followerWake.signal() }
    }

    /// Makes a batch in one transaction, with the writes that join it while it is held back
    /// (`gather`) and while it waits for the lock (neither when `admittingLatecomers` is
    /// false), and completes every write in it, in order.
    package func write(_ batch: [PendingWrite], admittingLatecomers: Bool = true) {
        var batch = batch
        if admittingLatecomers { gather(into: &batch) }
        guard let refusal = writerState.withLock({ copy in write(&batch, admittingLatecomers: admittingLatecomers, on: &copy) })
        else { return }
        refuseAlone(batch, refusal)
    }

    /// Makes `batch` in one transaction on the writer's copy of the state, and completes every
    /// write in it, in order; answers the error, and completes nothing, when a value of a change
    /// could not be sent (`refuseAlone` is next). When `admittingLatecomers`, the writes queued
    /// by the time the transaction holds the lock join `batch` (`PostgresTripTables.commit`),
    /// and stay in it if it is made again.
    package func write(
        _ batch: inout [PendingWrite], admittingLatecomers: Bool, on copy: inout PostgresTripTables.State
    ) -> PostgresStoreError? {
        let failure: StorageError
        var seen = copy.list.revision
        var attempt = 1
        var reconnected = false
        while true {
            do {
                let requests = batch.map(\.request)
                let (results, steps, timing) = try Self.withTables(from: pool) { (tables) throws(PostgresStoreError) in
                    let results = try tables.commit(
                        requests, joinedBy: { admittingLatecomers ? takeLatecomers(into: &batch) : [] }, to: &copy,
                        caughtUp: { caughtUp, steps in
                            // Other instances' changes, committed: on the feed now, not after ours.
                            publish(&caughtUp, steps: steps, after: seen)
                            seen = caughtUp.list.revision
                        })
                    return (results, tables.steps, tables.timing)
                }
                for photo in results.compactMap(\.entry?.photo) { photoCache.keep(photo.bytes, for: photo.photo.digest) }
                publish(&copy, steps: steps, after: seen, finishing: batch, timing: timing)
                for (pending, planned) in zip(batch, results) { pending.completion(planned.result) }
                return nil
            } catch {
                // What the transaction did to the copy never committed.
                copy = state.withLock { $0.tables }
                let handling = error.handling
                if handling == .refuseChange { return error }  // the value was never sent: the database is fine
                if handling == .reconnect, !reconnected {
                    log.info("PostgreSQL ended the session before the transaction committed (\(error)); once more on a new connection")
                    reconnected = true
                    continue
                }
                if handling == .retry, attempt < Self.attempts {
                    log.info("writing to PostgreSQL lost a race (\(error)); retrying, attempt \(attempt + 1) of \(Self.attempts)")
                    attempt += 1
                    continue
                }
                let reason = "writing to PostgreSQL failed: \(error)"
                failure = handling == .fault ? .databaseFault(reason: reason) : .database(reason: reason)
                break
            }
        }
        state.withLock { Self.finish(batch, failure: failure, in: &$0) }
        log.warning("\(batch.count) change\(batch.count == 1 ? "" : "s") refused: \(failure)")
        for pending in batch { pending.completion(.failure(.storage(failure))) }
        return nil
    }

    /// Moves the writes queued now to the end of `batch`, and answers their requests.
    package func takeLatecomers(into batch: inout [PendingWrite]) -> [ChangeRequest] {
        let latecomers = state.withLock { $0.takeQueue() }
        batch += latecomers
        return latecomers.map(\.request)
    }

    /// A value of a change in `batch` could not be sent: makes each write alone, so that
    /// only the one holding the value is refused (and its key is free again, as for any
    /// refused change), and the others, and readiness, go on.
    package func refuseAlone(_ batch: [PendingWrite], _ error: PostgresStoreError) {
        guard batch.count == 1 else {
            // None joins: a stream of such values would otherwise split batches ever deeper.
            for pending in batch { write([pending], admittingLatecomers: false) }
            return
        }
        state.withLock { Self.finish(batch, failure: nil, in: &$0) }
        log.warning("a change refused: \(error)")
        let reason = "the change holds a value PostgreSQL cannot store (U+0000 in a string, or more than one message can carry)"
        batch[0].completion(.failure(.rejected(.invalidBody(reason))))
    }

    /// Brings the list up to the tables' newest revision (another instance wrote).
    package func catchUp() {
        writerState.withLock { copy in
            let seen = copy.list.revision
            do {
                let steps = try Self.withTables(from: pool) { (tables) throws(PostgresStoreError) in
                    try tables.catchUp(&copy)
                    return tables.steps
                }
                publish(&copy, steps: steps, after: seen)
            } catch {
                log.warning("catching up on other instances' changes failed: \(error)")
                copy = state.withLock { $0.tables }  // some of the changes, perhaps: the next catching up makes them all
            }
        }
    }

    /// Makes `copy`, which a transaction or a catching up brought from revision `seen` to a
    /// newer one by `steps` (nil: it was read whole again), what reads see, and tells the
    /// listener every change after `seen` (`reset` when they are more than the history holds,
    /// or were pruned); the keys of `finishing`, a batch written, are no longer in flight, and
    /// its transaction's `timing` is counted. Then, outside the lock, the state swapped out
    /// into `copy` takes the same steps, and is the writer's copy again.
    package func publish(
        _ copy: inout PostgresTripTables.State, steps: [PostgresTripTables.Step]?, after seen: UInt64, finishing batch: [PendingWrite] = [],
        timing: WriteTransactionTiming? = nil
    ) {
        // The list that took the steps, which reads see from now on: its new trips' entries are
        // taken below (taken under this lock, not a second time).
        let leader = state.withLock { state -> TripList in
            swap(&state.tables, &copy)
            Self.finish(batch, failure: nil, in: &state)
            if let timing {
                state.statistics.writeTransactions?.record(timing)
                state.gathering.committed(
                    batchOf: batch.count, lockWait: .seconds(timing.seconds(in: .lock)), replayed: timing.replayed, limit: batchPatience)
            }
            guard let listener = state.listener else { return state.tables.list }
            let revision = state.tables.list.revision
            if let events = state.tables.history.events(after: seen) {
                for event in events { listener(event) }
            } else {
                log.warning(
                    revision > seen
                        ? "\(revision - seen) changes arrived at once, more than the history holds: the change feed says reset"
                        : "the tables went back from revision \(seen) to \(revision): the change feed says reset")
                listener(.reset(revision: revision))
            }
            return state.tables.list
        }
        guard let steps else {
            copy = state.withLock { $0.tables }  // shared until the next change copies what it touches
            return
        }
        do throws(PostgresStoreError) {
            for step in steps { try copy.redo(step, following: leader) }
        } catch {
            log.warning("the writer's copy of the state could not take the steps reads' copy took (\(error)): it is copied whole")
            copy = state.withLock { $0.tables }
        }
    }

    /// The keys of `batch`, written or refused, are no longer in flight; `failure`, if any, is
    /// what a write meets now (none: the database wrote, or could have).
    package static func finish(_ batch: [PendingWrite], failure: StorageError?, in state: inout State) {
        for pending in batch { if let key = pending.request.idempotency?.key { state.keysInFlight[key] = nil } }
        state.lastWriteFailure = failure
        if let failure { state.statistics.recordFailure(failure) }
    }
}
