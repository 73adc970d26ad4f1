import Glibc
import TripsDomain

/// Folds closed journal generations into a new snapshot, on a thread of its own, while the
/// writer goes on appending to the next generation: no change waits for a snapshot.
///
/// It writes the durable list, history and idempotency keys as they were at the switch of
/// generations: copies that share storage with the live ones (a change meanwhile copies only
/// what it touches, `TripIDTable`), so nothing is read back or replayed. The result becomes
/// the snapshot that continues with the generation the writer now appends to, and the folded
/// journals are removed. A crash at any step leaves a folder that recovers every acknowledged
/// change: before the rename, the old snapshot and every generation from the one it names
/// upwards; after it, the new snapshot and its generation (older journals are stale and
/// removed).
package struct Compaction: Sendable {
    package let folder: DataFolder
    package let fileSystem: any FileSystem
    package let log: any StorageLog
    /// The generations to fold: from the one the snapshot names to the one just closed.
    package let folded: ClosedRange<UInt64>
    /// The generation the writer appends to now, which the new snapshot names.
    package let next: UInt64

    /// Writes `list`, `history` and `ledger` (the durable state once every folded generation
    /// was applied, and nothing after) as the new snapshot; answers its size in bytes and trips.
    package func run(list: TripList, history: ChangeHistory, ledger: IdempotencyLedger) throws(StorageError) -> (bytes: Int, trips: Int) {
        let snapshot = Snapshot(list: list, events: history.all, keys: ledger.all, journal: next)
        // Held open across the rename that replaces it, so that its blocks can be freed a
        // slice at a time afterwards.
        let replaced = try? fileSystem.open(folder.snapshot, mode: .append)
        let bytes: Int
        do {
            bytes = try Compaction.installSnapshot(snapshot, folder: folder, fileSystem: fileSystem)
        } catch {
            if let replaced { try? fileSystem.close(replaced) }
            throw error
        }
        if let replaced { Self.shrinkAway(replaced, fileSystem: fileSystem) }
        // The new snapshot is in charge: a journal left behind is stale, and start-up removes it.
        for generation in folded {
            let path = folder.journal(generation)
            let journal = try? fileSystem.open(path, mode: .append)
            do {
                try fileSystem.removeFile(path)
            } catch {
                log.warning("cannot remove \(path), which the snapshot now covers: \(error)")
            }
            if let journal { Self.shrinkAway(journal, fileSystem: fileSystem) }  // start-up removes a stale journal unread
        }
        return (bytes, list.count)
    }

    /// Frees a file that no longer has a name, `slice` bytes at a time from its end, and
    /// closes it. Freeing a whole snapshot at once keeps the file system's own journal busy
    /// long enough (ext4: 10–25 ms for 25 MB) to hold up the next fdatasync of the store's
    /// journal; slices keep each hold short. A crash meanwhile leaves an orphan the file system
    /// reclaims, nothing the store reads.
    package static func shrinkAway(_ file: OpenFile, fileSystem: any FileSystem, slice: Int = 4 << 20) {
        defer { try? fileSystem.close(file) }
        guard var length = try? fileSystem.size(of: file) else { return }
        while length > 0 {
            length = max(0, length - slice)
            guard (try? fileSystem.truncate(file, to: length)) != nil else { return }
        }
    }

    /// What a snapshot file holds, ready for the journals that continue it to be replayed on.
    package struct LoadedSnapshot {
        package var state: (list: TripList, history: ChangeHistory, ledger: IdempotencyLedger)
        /// The generation of the journal that continues it.
        package let journal: UInt64
        /// The file's size.
        package let bytes: Int
        /// When it was read, for the idempotency keys' ages.
        package let now: Int64

        /// Moves the state out, leaving an empty list: in a list still held here, every page
        /// a replayed change touches would be copied.
        package mutating func takeState() -> (list: TripList, history: ChangeHistory, ledger: IdempotencyLedger) {
            var taken = (list: TripList(), history: state.history, ledger: state.ledger)
            swap(&taken.list, &state.list)
            return taken
        }
    }

    /// The list, history and idempotency keys a snapshot holds, and the generation it names.
    package static func loadSnapshot(
        folder: DataFolder, fileSystem: any FileSystem, configuration: StorageConfiguration
    ) throws(StorageError) -> LoadedSnapshot {
        let read = try fileSystem.withContents(of: folder.snapshot) { (contents) throws(StorageError) in
            (snapshot: try Snapshot(contents: contents, file: folder.snapshot), size: contents.bytes.count)
        }
        guard let (snapshot, size) = read else {
            throw .corrupt(file: folder.snapshot, offset: 0, reason: "the snapshot is missing")
        }
        var history = ChangeHistory(
            capacity: configuration.historyCapacity, revision: snapshot.list.revision - UInt64(snapshot.events.count))
        for event in snapshot.events { history.append(event) }
        let now = Int64(time(nil))
        var ledger = configuration.emptyLedger
        for use in snapshot.keys { ledger.finish(use, now: now) }
        return LoadedSnapshot(state: (snapshot.list, history, ledger), journal: snapshot.journal, bytes: size, now: now)
    }

    /// Makes `snapshot` the snapshot, atomically: write a new `snapshot.tmp`, `fsync` it, rename it
    /// over `snapshot`, `fsync` the folder. A crash before the rename leaves the old one in
    /// charge. Answers the file's size.
    package static func installSnapshot(
        _ snapshot: Snapshot, folder: DataFolder, fileSystem: any FileSystem, pieceSize: Int = 1 << 20
    ) throws(StorageError) -> Int {
        // A stale one (a crash mid-write, or a link planted there) goes first: the new one is
        // created, never opened through a name someone else made.
        try fileSystem.removeFile(folder.snapshotTemporary)
        let temporary = try fileSystem.open(folder.snapshotTemporary, mode: .createNew)
        var size = 0
        do {
            // Each piece goes to the disk as the next one is made, and at most two are in
            // memory unwritten: the fsync at the end then has little left to write, so the
            // journal's fdatasync meanwhile does not wait behind a whole snapshot.
            var unwritten: Range<Int>?
            try snapshot.write(pieceSize: pieceSize) { (piece) throws(StorageError) in
                try fileSystem.write(temporary, piece)
                let written = size..<size + piece.count
                size += piece.count
                try fileSystem.writeBack(temporary, range: written, waiting: false)
                if let unwritten { try fileSystem.writeBack(temporary, range: unwritten, waiting: true) }
                unwritten = written
            }
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
        return size
    }
}
