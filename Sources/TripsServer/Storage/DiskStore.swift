import Glibc
import TripsDomain

/// The data folder as the writer thread uses it: the lock, the open journal, compaction.
///
/// `TripStore` keeps it behind a mutex that only its writer thread takes while serving,
/// so every disk operation happens on that one thread.
struct DiskStore: Sendable {
    let folder: DataFolder
    let fileSystem: any FileSystem
    let log: any StorageLog
    let configuration: StorageConfiguration
    private var lockFile: OpenFile?
    /// nil after compaction switched generations and before the new journal exists.
    private var journal: OpenFile?
    /// The generation of the journal that records go to.
    private(set) var generation: UInt64
    /// The bytes of whole, synced records in the journal.
    private(set) var journalLength = 0
    private(set) var recordCount = 0
    /// The size of the snapshot the journal continues: its bytes, and its trips.
    private var snapshotSize = (bytes: 0, trips: 0)
    /// A failed write may have left bytes after `journalLength`; cut them before the next one.
    private var needsTruncation = false
    /// A rename or a new journal is not yet known to be durable in the folder.
    private var needsDirectorySync = false

    private init(
        folder: DataFolder, fileSystem: any FileSystem, log: any StorageLog, configuration: StorageConfiguration,
        lockFile: OpenFile
    ) {
        self.folder = folder
        self.fileSystem = fileSystem
        self.log = log
        self.configuration = configuration
        self.lockFile = lockFile
        generation = 0
    }

    /// Creates the folder if missing, takes its lock and recovers the list.
    ///
    /// The first start of a folder with neither snapshot nor journal writes `TripList.samples`
    /// (or an empty list when `seedSamples` is false) as the first snapshot; after that, an
    /// emptied list stays empty.
    static func open(
        _ path: String, seedSamples: Bool, fileSystem: any FileSystem, log: any StorageLog,
        configuration: StorageConfiguration
    ) throws(StorageError) -> (disk: DiskStore, list: TripList, history: ChangeHistory, ledger: IdempotencyLedger) {
        let folder = DataFolder(path: path)
        try fileSystem.createDirectory(path)
        let lockFile = try fileSystem.open(folder.lock, mode: .append)
        var disk = DiskStore(folder: folder, fileSystem: fileSystem, log: log, configuration: configuration, lockFile: lockFile)
        do throws(StorageError) {
            guard try fileSystem.tryLock(lockFile) else { throw .locked(folder: path) }
            let (list, history, ledger) = try disk.recover(seedSamples: seedSamples)
            return (disk, list, history, ledger)
        } catch {
            disk.close()
            throw error
        }
    }

    private mutating func recover(seedSamples: Bool) throws(StorageError) -> (TripList, ChangeHistory, IdempotencyLedger) {
        let names = try fileSystem.contentsOfDirectory(folder.path)
        if names.contains("snapshot.tmp") { try fileSystem.removeFile(folder.snapshotTemporary) }
        let journals = names.compactMap(DataFolder.generation(ofJournal:)).sorted()
        guard let snapshotBytes = try fileSystem.readFile(folder.snapshot) else {
            if let orphan = journals.first {
                throw .corrupt(file: folder.journal(orphan), offset: 0, reason: "the snapshot this journal continues is missing")
            }
            let list = seedSamples ? TripList.samples : TripList()
            let history = ChangeHistory(capacity: configuration.historyCapacity, revision: list.revision)
            try installSnapshot(of: list, history: history, ledger: IdempotencyLedger())
            log.info("created the data folder \(folder.path) with \(list.trips.count) trip\(list.trips.count == 1 ? "" : "s")")
            return (list, history, IdempotencyLedger())
        }
        let snapshot = try Snapshot(bytes: snapshotBytes, file: folder.snapshot)
        var history = ChangeHistory(
            capacity: configuration.historyCapacity, revision: snapshot.list.revision - UInt64(snapshot.events.count))
        for event in snapshot.events { history.append(event) }
        let now = Int64(time(nil))
        var ledger = IdempotencyLedger()
        for use in snapshot.keys { ledger.finish(use, now: now) }
        snapshotSize = (snapshotBytes.count, snapshot.list.trips.count)
        for stale in journals where stale != snapshot.journal {
            let path = folder.journal(stale)
            if stale > snapshot.journal, let bytes = try fileSystem.readFile(path), !bytes.isEmpty {
                throw .corrupt(file: path, offset: 0, reason: "the snapshot names the older journal \(snapshot.journal)")
            }
            // Left behind by a compaction that crashed before removing it; the snapshot covers it.
            try fileSystem.removeFile(path)
            log.info("removed \(path), which the snapshot already covers")
        }
        generation = snapshot.journal
        let path = folder.journal(generation)
        let bytes = try fileSystem.readFile(path)
        let replay = try JournalReplay(bytes ?? [], file: path, onto: snapshot.list, history: history, ledger: ledger, now: now)
        let journal = try fileSystem.open(path, mode: .append)
        self.journal = journal
        journalLength = replay.validLength
        recordCount = replay.recordCount
        if let tornTail = replay.tornTail {
            log.warning(
                "\(path): dropped a torn last record, a write a crash interrupted: \(tornTail); truncating to \(replay.validLength) bytes")
            try fileSystem.truncate(journal, to: replay.validLength)
            try fileSystem.synchronize(journal)
        }
        if bytes == nil { try fileSystem.synchronizeDirectory(folder.path) }
        let count = replay.list.trips.count
        log.info("\(count) trip\(count == 1 ? "" : "s") recovered from \(folder.path)")
        return (replay.list, replay.history, replay.ledger)
    }

    /// Whether the journal has grown past the configured size (and, unless configured
    /// otherwise, past the snapshot it continues).
    var needsCompaction: Bool {
        var byteLimit = configuration.compactionBytes
        var recordLimit = configuration.compactionRecords
        if configuration.growsWithSnapshot {
            byteLimit = max(byteLimit, snapshotSize.bytes)
            recordLimit = max(recordLimit, snapshotSize.trips)
        }
        return journalLength > byteLimit || recordCount > recordLimit
    }

    /// Appends whole framed records and waits until they are on disk (`fdatasync`).
    ///
    /// On failure the journal is cut back to its last good length, so a later append never
    /// lands after half a record.
    mutating func append(_ bytes: [UInt8], records: Int) throws(StorageError) {
        let journal = try openJournal()
        if needsTruncation {
            try fileSystem.truncate(journal, to: journalLength)
            needsTruncation = false
        }
        do {
            try fileSystem.write(journal, bytes)
            try fileSystem.synchronizeData(journal)
        } catch {
            needsTruncation = true
            do {
                try fileSystem.truncate(journal, to: journalLength)
                needsTruncation = false
            } catch {
                log.warning("cannot cut \(journal.path) back to \(journalLength) bytes after a failed write: \(error)")
            }
            throw error
        }
        journalLength += bytes.count
        recordCount += records
    }

    /// Writes `list` as the snapshot that continues with a fresh journal, then removes the old journal.
    ///
    /// Steps: write `snapshot.tmp`, `fsync` it, rename it over `snapshot`, `fsync` the folder,
    /// create the next journal, `fsync` the folder, remove the old journal. A crash before the
    /// rename leaves the old snapshot and journal in charge; after it, the new snapshot names
    /// the new generation, so the old journal is never replayed on top of it.
    mutating func installSnapshot(of list: TripList, history: ChangeHistory, ledger: IdempotencyLedger) throws(StorageError) {
        let next = generation + 1
        let bytes = Snapshot(list: list, events: history.all, keys: ledger.all, journal: next).bytes
        let temporary = try fileSystem.open(folder.snapshotTemporary, mode: .truncateAndAppend)
        do {
            try fileSystem.write(temporary, bytes)
            try fileSystem.synchronize(temporary)
            try fileSystem.close(temporary)
        } catch {
            try? fileSystem.close(temporary)  // already failing; the error below says why
            removeQuietly(folder.snapshotTemporary)
            throw error
        }
        do {
            try fileSystem.rename(folder.snapshotTemporary, to: folder.snapshot)
        } catch {
            removeQuietly(folder.snapshotTemporary)
            throw error
        }
        // The snapshot on disk now names journal `next`: nothing may go to the old one again.
        let previous = generation
        if let journal {
            self.journal = nil
            try? fileSystem.close(journal)  // its records are synced; a close error cannot lose them
        }
        generation = next
        snapshotSize = (bytes.count, list.trips.count)
        journalLength = 0
        recordCount = 0
        needsTruncation = false
        needsDirectorySync = true
        _ = try openJournal()
        if previous > 0 { removeQuietly(folder.journal(previous)) }
    }

    /// The journal to append to, creating it (and making the folder durable) first when needed.
    private mutating func openJournal() throws(StorageError) -> OpenFile {
        if needsDirectorySync {
            try fileSystem.synchronizeDirectory(folder.path)
            needsDirectorySync = false
        }
        if let journal { return journal }
        let journal = try fileSystem.open(folder.journal(generation), mode: .truncateAndAppend)
        self.journal = journal
        needsDirectorySync = true
        try fileSystem.synchronizeDirectory(folder.path)
        needsDirectorySync = false
        return journal
    }

    private func removeQuietly(_ path: String) {
        do {
            try fileSystem.removeFile(path)
        } catch {
            log.warning("cannot remove \(path): \(error)")
        }
    }

    /// Closes the journal and releases the lock. Idempotent.
    mutating func close() {
        if let lockFile { fileSystem.unlock(lockFile) }
        for file in [journal, lockFile].compactMap(\.self) {
            do {
                try fileSystem.close(file)
            } catch {
                log.warning("closing \(file.path): \(error)")
            }
        }
        journal = nil
        lockFile = nil
    }
}
