import Foundation
import Glibc
import Synchronization
import TripsDomain
import TripsPlatform

/// The trip list kept in a data folder (`--data`), by the one owner of it in a running server.
///
/// Reads see the durable list, through `read`. A write plans a change against the newest
/// list (durable plus changes waiting for the disk), applies it there, and hands its journal
/// record to a writer thread of its own. The writer takes every record waiting, writes
/// them in one `write` and one `fdatasync` (group commit), applies the same changes to the
/// durable list and calls the completions in order. No event loop or task waits for the disk.
///
/// A change that sets a photo brings its bytes: the writer makes the photo's file durable
/// before the record that names it (`PhotoFiles`), and photos serve from their files.
///
/// Both lists change in place, so a change costs what `TripList.apply` costs. The two start
/// out sharing storage, as does a list a reader takes out; a change then copies only the
/// pages and chunks it touches (`TripIDTable`, `ListOrder`), never the whole list.
package final class TripStore: Sendable {
    /// Where the data lives.
    package let directory: String
    /// The same folder's names, and the file layer: photos are read from their files directly.
    private let folder: DataFolder
    private let fileSystem: any FileSystem
    private let state: Mutex<State>
    /// Taken only by the writer thread, and by `close` once it stopped.
    private let disk: Mutex<DiskStore?>
    private let log: any StorageLog
    private let writer = WriterThread()
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
        /// `durable` plus every accepted change that is not yet on disk: what changes are
        /// planned against.
        var tip: TripList
        /// Changes waiting for the writer, in the order they were planned.
        var queue: [PendingChange] = []
        /// The writer took a batch and has not yet completed it.
        var isBatchInFlight = false
        var writerWake = WriterThread.Wake()
        var isClosing = false
        /// The last write to the journal failed, and none has succeeded since.
        var lastWriteFailure: StorageError?
        /// Syncs, compactions and failures, for the metrics.
        var statistics = StoreStatistics()
        /// Idempotency keys of recent changes, and of changes on their way to the disk.
        var ledger: IdempotencyLedger
    }

    /// A planned change on its way to the disk, and who to tell once it is there.
    ///
    /// A class: a batch is read in three passes (frame, apply, complete), and a struct this
    /// size was copied whole for each (~800 instructions a change, through its value witness).
    private final class PendingChange: Sendable {
        let planned: PlannedChange
        let completion: @Sendable (Result<Mutation, MutationError>) -> Void

        init(planned: PlannedChange, completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void) {
            self.planned = planned
            self.completion = completion
        }
    }

    /// Opens (or creates) the data folder, takes its lock and recovers the list.
    ///
    /// - Throws: `.locked` when another store holds the folder, `.corrupt` when a file is
    ///   damaged anywhere but a torn last record, `.io` when the folder cannot be used.
    package init(
        directory: String, seedSamples: Bool = true, configuration: StorageConfiguration = StorageConfiguration(),
        fileSystem: any FileSystem = PosixFileSystem(), log: any StorageLog = ConsoleLog()
    ) throws(StorageError) {
        self.directory = directory
        folder = DataFolder(path: directory)
        self.fileSystem = fileSystem
        self.log = log
        // Past RLIMIT_FSIZE a write must fail with EFBIG (the change is refused with 507, reads
        // go on), not raise SIGXFSZ, whose default action kills the process.
        signal(SIGXFSZ, SIG_IGN)
        let (disk, list, history, ledger) = try DiskStore.open(
            directory, seedSamples: seedSamples, fileSystem: fileSystem, log: log, configuration: configuration)
        // Reading the snapshot and the journals freed as much as the list they left behind.
        Linux.returnFreedMemory()
        state = Mutex(State(durable: list, history: history, tip: list, ledger: ledger))
        self.disk = Mutex(disk)
        writer.start(
            named: "trips-storage-writer", prepare: { [self] in compactIfNeeded() },  // a long journal left by the last run
            next: { [self] in nextStep() },
            perform: { [self] batch in
                write(batch)
                compactIfNeeded()
            })
    }

    /// Runs `body` on the durable list, which never shows a change that is not yet on disk.
    ///
    /// `body` runs under the store's lock: keep it short, and take out what it needs.
    package func read<T>(_ body: (borrowing TripList) throws -> T) rethrows -> T {
        try state.withLock { try body($0.durable) }
    }

    /// What the writer has done so far, with the list's size and revision now.
    package var statistics: (store: StoreStatistics, trips: Int, revision: UInt64) {
        state.withLock { ($0.statistics.countingPhotos(of: $0.durable), $0.durable.trips.count, $0.durable.revision) }
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

    /// The photo a trip of the durable list refers to by `digest`, read from its file (one
    /// `open` and `read` per call: a caller serving it often keeps it).
    package func photo(digest: String) throws(StorageError) -> PhotoBytes? {
        guard let photo = state.withLock({ $0.durable.photos[digest] }) else { return nil }
        return try PhotoFiles.read(photo, folder: folder, fileSystem: fileSystem)
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

    /// Plans a change against the newest list (`ChangePlanner` says how), applies it, journals
    /// it, and calls `completion` once it is durable (or failed).
    ///
    /// A change that changes nothing is not journaled. `completion` never runs before every
    /// change accepted earlier is durable: it runs on the writer thread, or right here, before
    /// `submit` returns, when nothing is waiting for the disk (or the idempotency key alone
    /// answers).
    package func submit(_ request: ChangeRequest, completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void) {
        let (immediate, wakeWriter) = state.withLock { state -> (Result<Mutation, MutationError>?, Bool) in
            guard !state.isClosing else { return (.failure(.storage(.closed)), false) }
            let planned = ChangePlanner.plan(request, on: &state.tip, ledger: &state.ledger)
            if planned.isAnsweredByKey || (planned.entry == nil && state.queue.isEmpty && !state.isBatchInFlight) {
                return (planned.result, false)
            }
            state.queue.append(PendingChange(planned: planned, completion: completion))
            return (nil, state.writerWake.request())
        }
        if wakeWriter { writer.wake() }
        if let immediate { completion(immediate) }
    }

    /// Finishes every accepted change, stops the writer, closes the journal and releases
    /// the folder's lock. Later mutations fail with `.storage(.closed)`. Idempotent.
    ///
    /// A store must be closed: its writer thread keeps it alive until then.
    package func close() {
        let (isFirstClose, wakeWriter) = state.withLock { state -> (Bool, Bool) in
            guard !state.isClosing else { return (false, false) }
            state.isClosing = true
            return (true, state.writerWake.request())
        }
        guard isFirstClose else { return }
        if wakeWriter { writer.wake() }
        writer.waitUntilStopped()
        compactions.wait()
        disk.withLock { disk in
            disk?.close()
            disk = nil
        }
    }

    // MARK: The writer thread

    /// Takes every change waiting, or stops once closing with none left, or sleeps.
    private func nextStep() -> WriterThread.Step<[PendingChange]> {
        state.withLock { state in
            if !state.queue.isEmpty {
                state.isBatchInFlight = true
                defer { state.queue.removeAll(keepingCapacity: true) }
                return .work(state.queue)
            }
            if state.isClosing { return .stop }
            state.writerWake.sleep()
            return .sleep
        }
    }

    /// Writes a batch's records with one `write` and one `fdatasync`, then completes it; the
    /// files of the photos the batch sets go first.
    private func write(_ batch: [PendingChange]) {
        var bytes: [UInt8] = []
        var records = 0
        var photos: [PhotoBytes] = []
        for pending in batch {
            guard let entry = pending.planned.entry else { continue }
            RecordFrame.append(payload: entry.record.payload, to: &bytes)
            records += 1
            if let photo = entry.photo { photos.append(photo) }
        }
        var failure: StorageError?
        var seconds: Double = 0
        if records > 0 {
            let started = SystemClock().now()
            failure = disk.withLock { disk -> StorageError? in
                do throws(StorageError) {
                    if !photos.isEmpty { try disk?.writePhotos(photos) }
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
                for pending in failed { pending.planned.entry?.abandon(ledger: &state.ledger) }
                return failed
            }
            log.warning("a write to the journal failed, \(failed.count) changes refused: \(failure)")
            for pending in failed { pending.completion(.failure(.storage(failure))) }
            return
        }
        state.withLock { state in
            for pending in batch {
                if let entry = pending.planned.entry { Self.applyDurable(entry, to: &state) }
            }
            state.isBatchInFlight = false
            if records > 0 {
                state.lastWriteFailure = nil
                state.statistics.recordSync(bytes: bytes.count, seconds: seconds)
            }
        }
        for pending in batch { pending.completion(pending.planned.result) }
    }

    /// Once the journals outgrew the configured size, switches to a new journal generation
    /// and folds the closed ones into a snapshot on a thread of its own: the writer goes on
    /// committing meanwhile.
    ///
    /// Runs on the writer thread between batches, so the durable state it hands over holds
    /// exactly the records of the closed generations.
    private func compactIfNeeded() {
        // A compaction that ended during the batch left its photo removal to now.
        disk.withLock { disk in
            guard disk?.needsPhotoRemoval == true else { return }
            disk?.removeUnreferencedPhotos(keeping: state.withLock { $0.durable.photos })
        }
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
            disk.withLock { disk in
                disk?.finishCompaction(compaction, snapshot: size)
                guard size != nil else { return }
                removeUnreferencedPhotos(from: &disk)
            }
            if size != nil { state.withLock { $0.statistics.compactions &+= 1 } }
        }
        thread.name = "trips-storage-compaction"
        thread.start()
    }

    /// Removes the photos' files no trip refers to once a compaction is durable, under the
    /// disk's lock (no batch is being written). Only while every record on disk is in the
    /// durable list: a batch written and not yet applied may name a photo the durable list
    /// does not hold yet, so with a batch in flight the writer removes them after it.
    private func removeUnreferencedPhotos(from disk: inout DiskStore?) {
        let (isBatchInFlight, photos) = state.withLock { ($0.isBatchInFlight, $0.durable.photos) }
        if isBatchInFlight {
            disk?.needsPhotoRemoval = true
        } else {
            disk?.removeUnreferencedPhotos(keeping: photos)
        }
    }

    /// Replays on the durable list a change the tip already accepted (it cannot fail there,
    /// since the durable list is the tip as it was when the change was planned), taking the
    /// trips the tip made, and tells the history and the listener.
    private static func applyDurable(_ entry: PlannedChange.Entry, to state: inout State) {
        do {
            try state.durable.apply(entry.record.change, as: entry.outcome)
        } catch {
            preconditionFailure("a change the tip accepted was refused by the durable list: \(error)")
        }
        entry.settle(history: &state.history, ledger: &state.ledger)
        state.listener?(entry.event)
    }
}
