import Foundation
import Synchronization
import TripsDomain

/// The one owner of the trip list in a running server.
///
/// Reads see `list`, the durable list. A write plans a change against the newest list
/// (durable plus changes waiting for the disk), applies it there, and hands its journal
/// record to a writer thread of its own. The writer takes every record waiting, writes
/// them in one `write` and one `fdatasync` (group commit), then publishes the new durable
/// list and calls the completions in order. No event loop or task ever waits for the disk.
final class TripStore: Sendable {
    /// Where the data lives; nil in memory.
    let directory: String?
    private let state: Mutex<State>
    /// nil in memory; otherwise taken only by the writer thread, and by `close` once it stopped.
    private let disk: Mutex<DiskStore?>
    private let log: any StorageLog
    /// Signalled once each time the writer is woken (`State.isWriterAwake` goes true).
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Signalled when the writer thread has stopped.
    private let writerStopped = DispatchSemaphore(value: 0)

    private struct State: ~Copyable {
        /// What reads see: every change in it is on disk. Published as one immutable object, so
        /// a read takes one retain instead of copying the list's arrays and dictionaries.
        var durable: Snapshot
        /// `durable` plus every accepted change that is not yet on disk.
        var tip: TripList
        /// Mutations waiting for the writer, in the order they were planned.
        var queue: [PendingMutation] = []
        /// The writer took a batch and has not yet completed it.
        var isBatchInFlight = false
        var isWriterAwake = false
        var isClosing = false
    }

    /// One published version of the durable list, shared by every reader that took it.
    final class Snapshot: Sendable {
        let list: TripList

        init(_ list: TripList) { self.list = list }
    }

    /// A planned mutation on its way to the disk.
    private struct PendingMutation: Sendable {
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
    init(
        directory: String?, seedSamples: Bool = true, configuration: StorageConfiguration = StorageConfiguration(),
        fileSystem: any FileSystem = PosixFileSystem(), log: any StorageLog = StandardErrorLog()
    ) throws(StorageError) {
        self.directory = directory
        self.log = log
        guard let directory else {
            let list = seedSamples ? TripList.samples : TripList()
            state = Mutex(State(durable: Snapshot(list), tip: list))
            disk = Mutex(nil)
            return
        }
        let (disk, list) = try DiskStore.open(
            directory, seedSamples: seedSamples, fileSystem: fileSystem, log: log, configuration: configuration)
        state = Mutex(State(durable: Snapshot(list), tip: list))
        self.disk = Mutex(disk)
        let thread = Thread { [self] in runWriter() }
        thread.name = "trips-storage-writer"
        thread.start()
    }

    /// The durable list: never shows a change that is not yet on disk.
    var list: TripList {
        snapshot.list
    }

    /// The durable list as a shared object: the cheapest read, for the request path.
    var snapshot: Snapshot {
        state.withLock { $0.durable }
    }

    /// Plans a change against the newest list, applies it, journals it, and calls
    /// `completion` once it is durable (or failed).
    ///
    /// `plan` runs under the store's lock, so it must be quick and pure; it throws
    /// `.rejected` or `.preconditionFailed`, or returns nil for "nothing to do". A change
    /// that changes nothing is not journaled. `completion` never runs before every change
    /// accepted earlier is durable: it runs on the writer thread, or right here, before
    /// `mutate` returns, when nothing is waiting for the disk (always, in memory).
    func mutate(
        _ plan: (TripList) throws(MutationError) -> TripChange?,
        completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void
    ) {
        let isInMemory = directory == nil
        let (immediate, wakeWriter) = state.withLock { state -> (Result<Mutation, MutationError>?, Bool) in
            guard !state.isClosing else { return (.failure(.storage(.closed)), false) }
            var record: JournalRecord?
            let result: Result<Mutation, MutationError>
            do throws(MutationError) {
                var next = state.tip
                var outcome: TripChangeOutcome?
                if let change = try plan(next) {
                    do throws(TripsError) {
                        outcome = try next.apply(change)
                    } catch {
                        throw .rejected(error)
                    }
                    if next.revision != state.tip.revision {
                        record = JournalRecord(revision: next.revision, change: change)
                        state.tip = next
                    }
                }
                result = .success(Mutation(list: next, outcome: outcome))
            } catch {
                result = .failure(error)
            }
            if isInMemory {
                if state.durable.list.revision != state.tip.revision { state.durable = Snapshot(state.tip) }
                return (result, false)
            }
            if record == nil && state.queue.isEmpty && !state.isBatchInFlight { return (result, false) }
            state.queue.append(PendingMutation(record: record, result: result, completion: completion))
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
    func close() {
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
        var durable: TripList?
        for pending in batch {
            guard let record = pending.record, case .success(let mutation) = pending.result else { continue }
            RecordFrame.append(payload: record.payload, to: &bytes)
            records += 1
            durable = mutation.list
        }
        var failure: StorageError?
        if records > 0 {
            failure = disk.withLock { disk -> StorageError? in
                do throws(StorageError) {
                    try disk?.append(bytes, records: records)
                    return nil
                } catch {
                    return error
                }
            }
        }
        if let failure {
            // Nothing of the batch is on disk: forget it and everything planned on top of it.
            let failed = state.withLock { state in
                state.tip = state.durable.list
                state.isBatchInFlight = false
                defer { state.queue.removeAll() }
                return batch + state.queue
            }
            log.warning("a write to the journal failed, \(failed.count) changes refused: \(failure)")
            for pending in failed { pending.completion(.failure(.storage(failure))) }
            return
        }
        state.withLock { state in
            if let durable { state.durable = Snapshot(durable) }
            state.isBatchInFlight = false
        }
        for pending in batch { pending.completion(pending.result) }
    }

    /// Compacts the journal into a snapshot once it grew past the configured size.
    private func compactIfNeeded() {
        disk.withLock { disk in
            guard disk?.needsCompaction == true else { return }
            // Only this thread moves `durable`, and it is exactly what the journal holds.
            let list = state.withLock { $0.durable.list }
            do {
                try disk?.installSnapshot(of: list)
            } catch {
                log.warning("compacting the journal failed, it keeps growing until a later attempt works: \(error)")
            }
        }
    }
}
