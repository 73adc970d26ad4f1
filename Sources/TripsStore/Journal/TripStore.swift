import Foundation
import Glibc
import Synchronization
import TripsDomain
import TripsPlatform

/// The one owner of the trip list in a running server.
///
/// Reads see the durable list, through `read`. A write plans a change against the newest
/// list (durable plus changes waiting for the disk), applies it there, and hands its journal
/// record to a writer thread of its own. The writer takes every record waiting, writes
/// them in one `write` and one `fdatasync` (group commit), applies the same changes to the
/// durable list and calls the completions in order. No event loop or task waits for the disk.
///
/// Both lists change in place, so a change costs what `TripList.apply` costs. The two start
/// out sharing storage, as does a list a reader takes out; a change then copies only the
/// pages and chunks it touches (`TripIDTable`, `ListOrder`), never the whole list.
package final class TripStore: Sendable {
    /// Where the data lives; nil in memory.
    package let directory: String?
    private let state: Mutex<State>
    /// nil in memory; otherwise taken only by the writer thread, and by `close` once it stopped.
    private let disk: Mutex<DiskStore?>
    private let log: any StorageLog
    /// Signalled once each time the writer is woken (`State.isWriterAwake` goes true).
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Signalled when the writer thread has stopped.
    private let writerStopped = DispatchSemaphore(value: 0)
    /// The compaction running on its own thread, if one is: `close` waits for it.
    private let compactions = DispatchGroup()

    private struct State: ~Copyable {
        /// What reads see: every change in it is on disk.
        var durable: TripList
        /// The latest durable changes, for the change feed.
        var history: ChangeHistory
        /// Told every durable change, in order, under the lock (so that a reader of `history`
        /// never misses one between reading and subscribing).
        var listener: (@Sendable (ChangeEvent) -> Void)?
        /// `durable` plus every accepted change that is not yet on disk.
        var tip: TripList
        /// Mutations waiting for the writer, in the order they were planned.
        var queue: [PendingMutation] = []
        /// The writer took a batch and has not yet completed it.
        var isBatchInFlight = false
        var isWriterAwake = false
        var isClosing = false
        /// The last write to the journal failed, and none has succeeded since.
        var lastWriteFailure: StorageError?
        /// Syncs, compactions and failures, for the metrics.
        var statistics = StoreStatistics()
        /// Idempotency keys of recent changes, and of changes on their way to the disk.
        var ledger: IdempotencyLedger
    }

    /// A planned mutation on its way to the disk.
    private struct PendingMutation: Sendable {
        /// The change to apply to the durable list once its record is on disk.
        let change: TripChange?
        /// The journal record, when the change changed anything.
        let record: JournalRecord?
        let result: Result<Mutation, MutationError>
        let completion: @Sendable (Result<Mutation, MutationError>) -> Void
    }

    /// Opens (or creates) the data folder, takes its lock and recovers the list;
    /// `directory == nil` keeps everything in memory.
    ///
    /// - Throws: `.locked` when another store holds the folder, `.corrupt` when a file is
    ///   damaged anywhere but a torn last record, `.io` when the folder cannot be used.
    package init(
        directory: String?, seedSamples: Bool = true, configuration: StorageConfiguration = StorageConfiguration(),
        fileSystem: any FileSystem = PosixFileSystem(), log: any StorageLog = ConsoleLog()
    ) throws(StorageError) {
        self.directory = directory
        self.log = log
        guard let directory else {
            let list = seedSamples ? TripList.samples : TripList()
            let history = ChangeHistory(capacity: configuration.historyCapacity, revision: list.revision)
            state = Mutex(State(durable: list, history: history, tip: list, ledger: configuration.emptyLedger))
            disk = Mutex(nil)
            return
        }
        // Past RLIMIT_FSIZE a write must fail with EFBIG (the change is refused with 507, reads
        // go on), not raise SIGXFSZ, whose default action kills the process.
        signal(SIGXFSZ, SIG_IGN)
        let (disk, list, history, ledger) = try DiskStore.open(
            directory, seedSamples: seedSamples, fileSystem: fileSystem, log: log, configuration: configuration)
        state = Mutex(State(durable: list, history: history, tip: list, ledger: ledger))
        self.disk = Mutex(disk)
        let thread = Thread { [self] in runWriter() }
        thread.name = "trips-storage-writer"
        thread.start()
    }

    /// Runs `body` on the durable list, which never shows a change that is not yet on disk.
    ///
    /// `body` runs under the store's lock: keep it short, and take out what it needs.
    package func read<T>(_ body: (borrowing TripList) throws -> T) rethrows -> T {
        try state.withLock { try body($0.durable) }
    }

    /// What the writer has done so far, with the list's size and revision now.
    package var statistics: (store: StoreStatistics, trips: Int, revision: UInt64) {
        state.withLock { ($0.statistics, $0.durable.trips.count, $0.durable.revision) }
    }

    /// Why the store cannot write now (the last write failed, and none has succeeded since),
    /// or nil when it can.
    package var writeFailure: StorageError? {
        state.withLock { $0.lastWriteFailure }
    }

    /// Runs `body` on the history of durable changes, under the same lock that publishes
    /// each new one to the listener: what `body` reads and what the listener is told next
    /// join without a gap or an overlap.
    package func withHistory<T>(_ body: (ChangeHistory) throws -> T) rethrows -> T {
        try state.withLock { try body($0.history) }
    }

    /// Tells `listener` every durable change from now on, in revision order (the change feed).
    /// There is one listener: a second call replaces the first.
    package func setChangeListener(_ listener: @escaping @Sendable (ChangeEvent) -> Void) {
        state.withLock { $0.listener = listener }
    }

    /// The durable list. Copy-on-write makes this a few retains; a change that lands while
    /// the caller holds it copies the pages it touches.
    package var list: TripList {
        read { copy $0 }
    }

    /// Plans a change against the newest list, applies it, journals it, and calls
    /// `completion` once it is durable (or failed).
    ///
    /// `plan` runs under the store's lock, so it must be quick and pure; it throws
    /// `.rejected` or `.preconditionFailed`, or returns nil for "nothing to do". A change
    /// that changes nothing is not journaled. `completion` never runs before every change
    /// accepted earlier is durable: it runs on the writer thread, or right here, before
    /// `mutate` returns, when nothing is waiting for the disk (always, in memory).
    ///
    /// With `idempotency`, a key already used for the same request answers its first answer
    /// again and changes nothing; used for another request, `.idempotencyConflict`; still on
    /// its way to the disk, `.idempotencyInFlight`. A new one makes the change, and its
    /// answer (`idempotency.answer` of the mutation, trimmed by `StoredAnswer.kept(for:)`)
    /// goes into the change's journal record.
    package func mutate(
        _ plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange?, returningList: Bool = false,
        idempotency: IdempotencyRequest? = nil,
        completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void
    ) {
        let isInMemory = directory == nil
        let (immediate, wakeWriter) = state.withLock { state -> (Result<Mutation, MutationError>?, Bool) in
            guard !state.isClosing else { return (.failure(.storage(.closed)), false) }
            if let idempotency {
                switch state.ledger.lookup(idempotency.key, fingerprint: idempotency.fingerprint) {
                case .new: break
                case .replay(let answer): return (.success(Mutation(replaying: answer, list: state.tip)), false)
                case .conflict: return (.failure(.idempotencyConflict), false)
                case .inFlight: return (.failure(.idempotencyInFlight), false)
                }
            }
            var record: JournalRecord?
            let result: Result<Mutation, MutationError>
            var change: TripChange?
            do throws(MutationError) {
                var outcome: TripChangeOutcome?
                change = try plan(state.tip)
                if let change {
                    let revision = state.tip.revision
                    // `apply` changes nothing when it throws, so the tip stays as it was.
                    do throws(TripsError) {
                        outcome = try state.tip.apply(change)
                    } catch {
                        throw .rejected(error)
                    }
                    if state.tip.revision != revision {
                        record = JournalRecord(revision: state.tip.revision, change: change)
                    }
                }
                var mutation = Mutation(outcome: outcome, list: state.tip, returningList: returningList)
                if let idempotency, let answer = idempotency.answer(mutation) {
                    mutation.answer = answer  // whole: the ledger and the journal keep `use`, trimmed
                    let use = idempotency.use(answered: answer, outcome: outcome)
                    if record != nil {
                        record?.idempotency = use
                        state.ledger.begin(use.ledgerKey, fingerprint: use.fingerprint)  // kept once durable
                    } else {
                        state.ledger.finish(use, now: use.at)  // nothing to save: kept in memory
                    }
                }
                result = .success(mutation)
            } catch {
                result = .failure(error)
            }
            if record == nil { change = nil }
            if isInMemory {
                if let change { Self.applyDurable(change, keyUse: record?.idempotency, to: &state) }
                return (result, false)
            }
            if record == nil && state.queue.isEmpty && !state.isBatchInFlight { return (result, false) }
            state.queue.append(PendingMutation(change: change, record: record, result: result, completion: completion))
            guard !state.isWriterAwake else { return (nil, false) }
            state.isWriterAwake = true
            return (nil, true)
        }
        if wakeWriter { wakeUp.signal() }
        if let immediate { completion(immediate) }
    }

    /// Finishes every accepted change, stops the writer, closes the journal and releases
    /// the folder's lock. Later mutations fail with `.storage(.closed)`. Idempotent.
    ///
    /// A store on disk must be closed: its writer thread keeps it alive until then.
    package func close() {
        let (isFirstClose, wakeWriter) = state.withLock { state -> (Bool, Bool) in
            guard !state.isClosing else { return (false, false) }
            state.isClosing = true
            guard !state.isWriterAwake else { return (true, false) }
            state.isWriterAwake = true
            return (true, true)
        }
        guard isFirstClose, directory != nil else { return }
        if wakeWriter { wakeUp.signal() }
        writerStopped.wait()
        compactions.wait()
        disk.withLock { disk in
            disk?.close()
            disk = nil
        }
    }

    // MARK: The writer thread

    /// What the writer does next.
    private enum WriterStep {
        case write([PendingMutation])
        case sleep
        case stop
    }

    private func runWriter() {
        compactIfNeeded()  // a long journal left by the last run
        while true {
            wakeUp.wait()
            var step = nextStep()
            while case .write(let batch) = step {
                write(batch)
                compactIfNeeded()
                step = nextStep()
            }
            if case .stop = step { break }
        }
        writerStopped.signal()
    }

    private func nextStep() -> WriterStep {
        state.withLock { state in
            if !state.queue.isEmpty {
                state.isBatchInFlight = true
                defer { state.queue.removeAll(keepingCapacity: true) }
                return .write(state.queue)
            }
            if state.isClosing { return .stop }
            state.isWriterAwake = false
            return .sleep
        }
    }

    /// Writes a batch's records with one `write` and one `fdatasync`, then completes it.
    private func write(_ batch: [PendingMutation]) {
        var bytes: [UInt8] = []
        var records = 0
        for pending in batch {
            guard let record = pending.record else { continue }
            RecordFrame.append(payload: record.payload, to: &bytes)
            records += 1
        }
        var failure: StorageError?
        var seconds: Double = 0
        if records > 0 {
            let started = SystemClock().now()
            failure = disk.withLock { disk -> StorageError? in
                do throws(StorageError) {
                    try disk?.append(bytes, records: records)
                    return nil
                } catch {
                    return error
                }
            }
            seconds = Double(SystemClock().now().nanoseconds(since: started)) / 1e9
        }
        if let failure {
            // Nothing of the batch is on disk: forget it and everything planned on top of it.
            let failed = state.withLock { state in
                state.tip = state.durable
                state.isBatchInFlight = false
                state.lastWriteFailure = failure
                state.statistics.recordFailure(failure)
                let failed = batch + state.queue
                state.queue.removeAll()
                for pending in failed { if let use = pending.record?.idempotency { state.ledger.abandon(use.ledgerKey) } }
                return failed
            }
            log.warning("a write to the journal failed, \(failed.count) changes refused: \(failure)")
            for pending in failed { pending.completion(.failure(.storage(failure))) }
            return
        }
        state.withLock { state in
            for pending in batch {
                if let change = pending.change { Self.applyDurable(change, keyUse: pending.record?.idempotency, to: &state) }
            }
            state.isBatchInFlight = false
            if records > 0 {
                state.lastWriteFailure = nil
                state.statistics.recordSync(bytes: bytes.count, seconds: seconds)
            }
        }
        for pending in batch { pending.completion(pending.result) }
    }

    /// Once the journals outgrew the configured size, switches to a new journal generation
    /// and folds the closed ones into a snapshot on a thread of its own: the writer goes on
    /// committing meanwhile.
    ///
    /// Runs on the writer thread between batches, so the durable state it hands over holds
    /// exactly the records of the closed generations.
    private func compactIfNeeded() {
        let compaction = disk.withLock { disk -> Compaction? in
            guard disk?.needsCompaction == true else { return nil }
            do {
                return try disk?.beginCompaction()
            } catch {
                log.warning("switching to a new journal for a compaction failed; the journal keeps growing until it works: \(error)")
                return nil
            }
        }
        guard let compaction else { return }
        let durable = state.withLock { (list: $0.durable, history: $0.history, ledger: $0.ledger) }
        compactions.enter()
        let thread = Thread { [self] in
            defer { compactions.leave() }
            Linux.lowerCurrentThreadPriority(to: 10)
            var size: (bytes: Int, trips: Int)?
            do {
                size = try compaction.run(list: durable.list, history: durable.history, ledger: durable.ledger)
            } catch {
                log.warning("compacting the journal failed; its generations are kept and folded by a later compaction: \(error)")
            }
            disk.withLock { $0?.finishCompaction(compaction, snapshot: size) }
            if size != nil { state.withLock { $0.statistics.compactions &+= 1 } }
        }
        thread.name = "trips-storage-compaction"
        thread.start()
    }

    /// Replays on the durable list a change the tip already accepted (it cannot fail there,
    /// since the durable list is the tip as it was when the change was planned), and tells
    /// the history and the listener.
    private static func applyDurable(_ change: TripChange, keyUse: IdempotencyKeyUse?, to state: inout State) {
        if let keyUse { state.ledger.finish(keyUse, now: keyUse.at) }
        let event: ChangeEvent?
        do {
            event = try state.durable.applyTelling(change).event
        } catch {
            preconditionFailure("a change the tip accepted was refused by the durable list: \(error)")
        }
        guard let event else { return }
        state.history.append(event)
        state.listener?(event)
    }
}
