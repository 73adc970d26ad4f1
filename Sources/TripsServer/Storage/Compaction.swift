import Glibc
import TripsDomain

/// Folds closed journal generations into a new snapshot, on a thread of its own, while the
/// writer goes on appending to the next generation: no change waits for a snapshot.
///
/// It shares nothing with the live list. It reads the snapshot the folded generations
/// continue and replays them, the way start-up does, then writes the result as the snapshot
/// that continues with the generation the writer now appends to, and removes the folded
/// journals. A crash at any step leaves a folder that recovers every acknowledged change:
/// before the rename, the old snapshot and every generation from the one it names upwards;
/// after it, the new snapshot and its generation (older journals are stale and removed).
struct Compaction: Sendable {
    let folder: DataFolder
    let fileSystem: any FileSystem
    let configuration: StorageConfiguration
    let log: any StorageLog
    /// The generations to fold: from the one the snapshot names to the one just closed.
    let folded: ClosedRange<UInt64>
    /// The generation the writer appends to now, which the new snapshot names.
    let next: UInt64

    /// Runs the compaction; answers the new snapshot's size in bytes and trips.
    func run() throws(StorageError) -> (bytes: Int, trips: Int) {
        var base = try Compaction.loadSnapshot(folder: folder, fileSystem: fileSystem, configuration: configuration)
        guard base.journal == folded.lowerBound else {
            throw .corrupt(
                file: folder.snapshot, offset: 0,
                reason: "the snapshot names journal \(base.journal), not \(folded.lowerBound) where this compaction starts")
        }
        var (list, history, ledger) = base.takeState()
        for generation in folded {
            let path = folder.journal(generation)
            let bytes = try fileSystem.readFile(path) ?? []
            let replayed = try JournalReplay(
                bytes, file: path, onto: consume list, history: consume history, ledger: consume ledger, now: base.now)
            (list, history, ledger) = (replayed.list, replayed.history, replayed.ledger)
        }
        let bytes = Snapshot(list: list, events: history.all, keys: ledger.all, journal: next).bytes
        try Compaction.installSnapshot(bytes, folder: folder, fileSystem: fileSystem)
        // The new snapshot is in charge: a journal left behind is stale, and start-up removes it.
        for generation in folded {
            do {
                try fileSystem.removeFile(folder.journal(generation))
            } catch {
                log.warning("cannot remove \(folder.journal(generation)), which the snapshot now covers: \(error)")
            }
        }
        return (bytes.count, list.count)
    }

    /// What a snapshot file holds, ready for the journals that continue it to be replayed on.
    struct LoadedSnapshot {
        var state: (list: TripList, history: ChangeHistory, ledger: IdempotencyLedger)
        /// The generation of the journal that continues it.
        let journal: UInt64
        /// The file's size.
        let bytes: Int
        /// When it was read, for the idempotency keys' ages.
        let now: Int64

        /// Moves the state out, leaving an empty list: a list still held here would be copied
        /// whole by the first change replayed on it.
        mutating func takeState() -> (list: TripList, history: ChangeHistory, ledger: IdempotencyLedger) {
            var taken = (list: TripList(), history: state.history, ledger: state.ledger)
            swap(&taken.list, &state.list)
            return taken
        }
    }

    /// The list, history and idempotency keys a snapshot holds, and the generation it names.
    static func loadSnapshot(
        folder: DataFolder, fileSystem: any FileSystem, configuration: StorageConfiguration
    ) throws(StorageError) -> LoadedSnapshot {
        guard let bytes = try fileSystem.readFile(folder.snapshot) else {
            throw .corrupt(file: folder.snapshot, offset: 0, reason: "the snapshot is missing")
        }
        let snapshot = try Snapshot(bytes: bytes, file: folder.snapshot)
        var history = ChangeHistory(
            capacity: configuration.historyCapacity, revision: snapshot.list.revision - UInt64(snapshot.events.count))
        for event in snapshot.events { history.append(event) }
        let now = Int64(time(nil))
        var ledger = IdempotencyLedger()
        for use in snapshot.keys { ledger.finish(use, now: now) }
        return LoadedSnapshot(state: (snapshot.list, history, ledger), journal: snapshot.journal, bytes: bytes.count, now: now)
    }

    /// Makes `bytes` the snapshot, atomically: write `snapshot.tmp`, `fsync` it, rename it over
    /// `snapshot`, `fsync` the folder. A crash before the rename leaves the old one in charge.
    static func installSnapshot(_ bytes: [UInt8], folder: DataFolder, fileSystem: any FileSystem) throws(StorageError) {
        let temporary = try fileSystem.open(folder.snapshotTemporary, mode: .truncateAndAppend)
        do {
            try fileSystem.write(temporary, bytes)
            try fileSystem.synchronize(temporary)
        } catch {
            try? fileSystem.close(temporary)  // already failing; the error below says why
            try? fileSystem.removeFile(folder.snapshotTemporary)
            throw error
        }
        do {
            // Closed once, whatever happens: another thread may reuse the descriptor at once.
            try fileSystem.close(temporary)
            try fileSystem.rename(folder.snapshotTemporary, to: folder.snapshot)
        } catch {
            try? fileSystem.removeFile(folder.snapshotTemporary)
            throw error
        }
        try fileSystem.synchronizeDirectory(folder.path)
    }
}
