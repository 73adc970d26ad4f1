import Foundation
import Synchronization
import TripsDomain

/// The trip list kept in PostgreSQL, so that several servers can share it: the same surface
/// as `TripStore`, with the database in charge instead of a data folder.
///
/// Reads see the list in memory, as of the last revision this instance saw. A write goes to
/// a writer thread of its own, which takes every write waiting and makes them in one
/// transaction (`PostgresTripTables.commit`): planned against the tables' newest list, so a
/// precondition holds inside the transaction even with other instances writing. A follower
/// thread `LISTEN`s for other instances' changes (and looks every `pollInterval` anyway, in
/// case a notification was lost with a connection) and has the writer catch up on them; the
/// change feed hears every change, whichever instance made it.
///
/// Every `retention.interval` changes the writer prunes old changes and idempotency keys
/// (`PostgresRetention`); an instance that falls further behind loads the list again, and its
/// change feed says `reset`.
///
/// With the database unreachable, writes fail at once with `.database` (503, `Retry-After`)
/// while reads go on from memory; each thread reconnects on its own, backing off from
/// `retryDelay` up to 30 times that.
final class PostgresTripStore: Sendable {
    private let connection: PostgresConnectionConfiguration
    private let retention: PostgresRetention
    private let log: any StorageLog
    private let state: Mutex<State>
    private let wakeUp = DispatchSemaphore(value: 0)
    private let writerStopped = DispatchSemaphore(value: 0)
    private let followerStopped = DispatchSemaphore(value: 0)
    /// Cuts the follower's wait before reconnecting short when the store closes.
    private let followerWake = DispatchSemaphore(value: 0)
    /// How long the follower waits for a notification before it looks for changes anyway.
    let pollInterval: Duration
    let retryDelay: Duration

    private struct State: ~Copyable {
        /// What reads see, and what the next transaction catches up from.
        var tables: PostgresTripTables.State
        var listener: (@Sendable (ChangeEvent) -> Void)?
        var queue: [PendingWrite] = []
        var needsCatchUp = false
        var isWriterAwake = false
        var isClosing = false
        /// The last write failed, and none has succeeded since.
        var lastWriteFailure: StorageError?
        /// The follower cannot reach the database now: the next write would fail too.
        var unreachable: StorageError?
        var statistics = StoreStatistics()
    }

    /// A write waiting for the writer thread.
    private struct PendingWrite: Sendable {
        let plan: @Sendable (TripList) throws(MutationError) -> TripChange?
        let returningList: Bool
        let idempotency: IdempotencyRequest?
        let completion: @Sendable (Result<Mutation, MutationError>) -> Void
    }

    /// Connects, brings the schema up to date (`SchemaMigrator`), seeds new tables with the
    /// sample trips (unless `seedSamples` is false), loads the list and starts the writer and
    /// follower threads.
    init(
        connection: PostgresConnectionConfiguration, seedSamples: Bool = true, configuration: StorageConfiguration = StorageConfiguration(),
        retention: PostgresRetention? = nil, pollInterval: Duration = .seconds(1), retryDelay: Duration = .milliseconds(100),
        log: any StorageLog = ConsoleLog()
    ) throws(PostgresStoreError) {
        self.connection = connection
        self.retention = retention ?? PostgresRetention(historyCapacity: configuration.historyCapacity)
        self.pollInterval = pollInterval
        self.retryDelay = retryDelay
        self.log = log
        let first: PostgresConnection
        do {
            first = try PostgresConnection.connect(connection)
        } catch {
            throw .database(error)
        }
        let tables = PostgresTripTables(connection: first)
        do throws(PostgresStoreError) {
            do {
                _ = try SchemaMigrator.migrate(first)
            } catch {
                throw PostgresStoreError.migration(error)
            }
            if seedSamples { try tables.seed(.samples) }
            state = Mutex(State(tables: try tables.load(historyCapacity: configuration.historyCapacity)))
        } catch {
            first.close()
            throw error
        }
        let handoff = WriterConnection(tables: tables)
        let writer = Thread { [self] in runWriter(handoff.tables) }
        writer.name = "trips-postgres-writer"
        writer.start()
        let follower = Thread { [self] in runFollower() }
        follower.name = "trips-postgres-follower"
        follower.start()
    }

    /// The first connection, handed from `init` to the writer thread, which alone uses it
    /// from then on.
    private struct WriterConnection: @unchecked Sendable {
        let tables: PostgresTripTables
    }

    // MARK: What the API uses (as `TripStore`)

    func read<T>(_ body: (borrowing TripList) throws -> T) rethrows -> T {
        try state.withLock { try body($0.tables.list) }
    }

    var list: TripList {
        read { copy $0 }
    }

    var statistics: (store: StoreStatistics, trips: Int, revision: UInt64) {
        state.withLock { ($0.statistics, $0.tables.list.count, $0.tables.list.revision) }
    }

    /// Why a write would fail now: the last one failed, or the database cannot be reached
    /// (`/readyz` says not ready, so a balancer sends requests to another instance).
    var writeFailure: StorageError? {
        state.withLock { $0.lastWriteFailure ?? $0.unreachable }
    }

    func withHistory<T>(_ body: (ChangeHistory) throws -> T) rethrows -> T {
        try state.withLock { try body($0.tables.history) }
    }

    func setChangeListener(_ listener: @escaping @Sendable (ChangeEvent) -> Void) {
        state.withLock { $0.listener = listener }
    }

    /// Queues a change for the writer, which plans it in its transaction against the newest
    /// list; `completion` runs on the writer thread once the transaction committed (or failed).
    func mutate(
        _ plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange?, returningList: Bool = false,
        idempotency: IdempotencyRequest? = nil,
        completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void
    ) {
        let (refusal, wake) = state.withLock { state -> (MutationError?, Bool) in
            guard !state.isClosing else { return (.storage(.closed), false) }
            state.queue.append(PendingWrite(plan: plan, returningList: returningList, idempotency: idempotency, completion: completion))
            guard !state.isWriterAwake else { return (nil, false) }
            state.isWriterAwake = true
            return (nil, true)
        }
        if let refusal { completion(.failure(refusal)) }
        if wake { wakeUp.signal() }
    }

    /// Finishes the writes waiting, stops both threads and closes their connections. Idempotent.
    func close() {
        let (isFirstClose, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.isClosing else { return (false, false) }
            state.isClosing = true
            guard !state.isWriterAwake else { return (true, false) }
            state.isWriterAwake = true
            return (true, true)
        }
        guard isFirstClose else { return }
        if wake { wakeUp.signal() }
        followerWake.signal()
        writerStopped.wait()
        followerStopped.wait()
    }

    // MARK: The writer thread

    private enum WriterStep {
        case write([PendingWrite])
        case catchUp
        case sleep
        case stop
    }

    private func runWriter(_ first: PostgresTripTables) {
        var link = DatabaseLink(store: self, tables: first)
        var prunedAt = state.withLock { $0.tables.list.revision }
        while true {
            wakeUp.wait()
            while true {
                let step = state.withLock { state -> WriterStep in
                    if !state.queue.isEmpty {
                        defer { state.queue.removeAll(keepingCapacity: true) }
                        return .write(state.queue)
                    }
                    if state.needsCatchUp {
                        state.needsCatchUp = false
                        return .catchUp
                    }
                    if state.isClosing { return .stop }
                    state.isWriterAwake = false
                    return .sleep
                }
                switch step {
                case .write(let batch):
                    write(batch, over: &link)
                    pruneIfDue(over: &link, prunedAt: &prunedAt)
                case .catchUp:
                    catchUp(over: &link)
                    pruneIfDue(over: &link, prunedAt: &prunedAt)
                case .sleep: break
                case .stop:
                    link.close()
                    writerStopped.signal()
                    return
                }
                if case .sleep = step { break }
            }
        }
    }

    /// Makes a batch in one transaction and completes every write in it, in order.
    private func write(_ batch: [PendingWrite], over link: inout DatabaseLink) {
        let failure: StorageError
        var working = state.withLock { $0.tables }
        let seen = working.list.revision
        if let tables = link.tables() {
            let writes = batch.map { pending in
                PostgresTripTables.Write(
                    plan: pending.plan, key: pending.idempotency.map { ($0.key, $0.fingerprint) },
                    keyUse: pending.idempotency.map { idempotency in
                        { written in
                            idempotency.answer(Mutation(outcome: written.outcome, list: written.list, returningList: pending.returningList))
                                .map {
                                    IdempotencyKeyUse(
                                        key: idempotency.key, fingerprint: idempotency.fingerprint, at: idempotency.now, answer: $0)
                                }
                        }
                    })
            }
            do {
                let results = try tables.commit(writes, to: &working)
                publish(working, after: seen, failure: nil)
                for (pending, result) in zip(batch, results) {
                    pending.completion(Self.answer(result, returningList: pending.returningList))
                }
                return
            } catch {
                link.dropIfBroken()
                failure = .database(reason: "writing to PostgreSQL failed: \(error)")
            }
        } else {
            failure = .database(reason: "PostgreSQL cannot be reached: \(link.lastError.map { "\($0)" } ?? "not connected")")
        }
        // The catching up a failed transaction did is still true: keep it.
        publish(working, after: seen, failure: failure)
        log.warning("\(batch.count) change\(batch.count == 1 ? "" : "s") refused: \(failure)")
        for pending in batch { pending.completion(.failure(.storage(failure))) }
    }

    private static func answer(_ result: PostgresTripTables.WriteResult, returningList: Bool) -> Result<Mutation, MutationError> {
        switch result {
        case .written(let written, let keyUse):
            var mutation = Mutation(outcome: written.outcome, list: written.list, returningList: returningList)
            mutation.answer = keyUse?.answer
            return .success(mutation)
        case .replayed(let answer, let revision):
            return .success(Mutation(replaying: answer, revision: revision))
        case .refused(let error):
            return .failure(error)
        }
    }

    /// Brings the list up to the tables' newest revision (another instance wrote).
    private func catchUp(over link: inout DatabaseLink) {
        guard let tables = link.tables() else { return }  // the follower asks again
        var working = state.withLock { $0.tables }
        let seen = working.list.revision
        do {
            try tables.catchUp(&working)
        } catch {
            link.dropIfBroken()
            log.warning("catching up on other instances' changes failed: \(error)")
        }
        publish(working, after: seen, failure: nil)
    }

    /// Prunes the tables once `retention.interval` changes passed since the last time.
    private func pruneIfDue(over link: inout DatabaseLink, prunedAt: inout UInt64) {
        let revision = state.withLock { $0.tables.list.revision }
        guard revision >= prunedAt + retention.interval, let tables = link.tables() else { return }
        do {
            try tables.prune(retention, now: Int64(time(nil)))
            prunedAt = revision
        } catch {
            link.dropIfBroken()
            log.warning("pruning old changes and idempotency keys failed: \(error)")
        }
    }

    /// Makes `working` what reads see, and tells the listener every change after `seen`
    /// (`reset` when they are more than the history holds, or were pruned).
    private func publish(_ working: PostgresTripTables.State, after seen: UInt64, failure: StorageError?) {
        state.withLock { state in
            let events = working.history.events(after: seen)
            state.tables = working
            if let failure {
                state.lastWriteFailure = failure
                state.statistics.recordFailure(failure)
            } else if working.list.revision != seen || state.lastWriteFailure != nil {
                state.lastWriteFailure = nil
            }
            guard let listener = state.listener else { return }
            if let events {
                for event in events { listener(event) }
            } else {
                log.warning(
                    "\(working.list.revision - seen) changes arrived at once, more than the history holds: the change feed says reset")
                listener(.reset(revision: working.list.revision))
            }
        }
    }

    // MARK: The follower thread

    /// Listens for other instances' changes on a connection of its own and has the writer
    /// catch up; reconnects with backoff when the connection breaks.
    private func runFollower() {
        var listening: PostgresConnection?
        var delay = retryDelay
        var lastLook = ContinuousClock.now
        while !state.withLock({ $0.isClosing }) {
            if listening == nil {
                do {
                    let connection = try PostgresConnection.connect(connection)
                    try connection.simpleQuery("LISTEN trips_changes")
                    listening = connection
                    delay = retryDelay
                    setUnreachable(nil)
                    requestCatchUp()  // whatever happened while no one listened
                } catch {
                    setUnreachable(.database(reason: "PostgreSQL cannot be reached: \(error)"))
                    _ = followerWake.wait(timeout: .now() + .nanoseconds(Int(clamping: delay.nanoseconds)))
                    delay = min(delay * 2, retryDelay * 30)
                    continue
                }
            }
            do {
                // Short waits, so that `close` never waits long for this thread.
                let notifications = try listening?.waitForNotifications(timeout: min(pollInterval, .milliseconds(200))) ?? []
                let known = state.withLock { $0.tables.list.revision }
                if notifications.contains(where: { UInt64($0.payload).map { $0 > known } ?? true }) || .now - lastLook >= pollInterval {
                    lastLook = .now
                    requestCatchUp()
                }
            } catch {
                listening?.close()
                listening = nil
            }
        }
        listening?.close()
        followerStopped.signal()
    }

    /// Records whether the database can be reached, and logs when that changes.
    private func setUnreachable(_ failure: StorageError?) {
        let previous = state.withLock { state -> StorageError? in
            defer { state.unreachable = failure }
            return state.unreachable
        }
        switch (previous, failure) {
        case (nil, let failure?): log.warning("\(failure); changes are refused until it is back, reads go on")
        case (_?, nil): log.info("PostgreSQL can be reached again")
        default: break
        }
    }

    private func requestCatchUp() {
        let wake = state.withLock { state -> Bool in
            state.needsCatchUp = true
            guard !state.isWriterAwake else { return false }
            state.isWriterAwake = true
            return true
        }
        if wake { wakeUp.signal() }
    }

    /// The writer's connection: the one it has, or a new one once `retryDelay` (doubling after
    /// each failure, up to 30 times) has passed since the last attempt.
    private struct DatabaseLink {
        let store: PostgresTripStore
        var current: PostgresTripTables?
        var lastAttempt: ContinuousClock.Instant?
        var delay: Duration
        var lastError: PostgresConnectionError?

        init(store: PostgresTripStore, tables: PostgresTripTables) {
            self.store = store
            current = tables
            delay = store.retryDelay
        }

        mutating func tables() -> PostgresTripTables? {
            if let current, current.connection.isOpen { return current }
            current = nil
            let now = ContinuousClock.now
            if let lastAttempt, now - lastAttempt < delay { return nil }
            lastAttempt = now
            do {
                current = PostgresTripTables(connection: try PostgresConnection.connect(store.connection))
                delay = store.retryDelay
                lastError = nil
            } catch {
                lastError = error
                delay = min(delay * 2, store.retryDelay * 30)
            }
            return current
        }

        /// Forgets a connection a failure closed; one that only had a statement refused stays.
        mutating func dropIfBroken() {
            if let current, !current.connection.isOpen { self.current = nil }
        }

        mutating func close() {
            current?.connection.close()
            current = nil
        }
    }
}
