import Glibc
import TripsDomain

/// The data folder as the writer thread uses it: the lock, the open journal, the photos'
/// files, and the switch to a new journal generation that hands the closed ones to a
/// `Compaction`.
///
/// `TripStore` keeps it behind a mutex that its writer thread takes while serving, and a
/// compaction only at its end, to record what it folded.
struct DiskStore: Sendable {
    let folder: DataFolder
    let fileSystem: any FileSystem
    let log: any StorageLog
    let configuration: StorageConfiguration
    private var lockFile: OpenFile?
    /// nil after a switch of generations and before the new journal exists.
    private var journal: OpenFile?
    /// The generation of the journal that records go to.
    private(set) var generation: UInt64
    /// The generation the snapshot names: it and every one after it up to `generation` are
    /// replayed at start-up.
    private var snapshotGeneration: UInt64 = 0
    /// The bytes of whole, synced records in the journal.
    private(set) var journalLength = 0
    private(set) var recordCount = 0
    /// The closed generations no snapshot covers yet: their bytes and records.
    private var unfolded = (bytes: 0, records: 0)
    /// A compaction is folding the closed generations; no second one starts meanwhile.
    private(set) var isCompacting = false
    /// The size of the snapshot the journal continues: its bytes, and its trips.
    private var snapshotSize = (bytes: 0, trips: 0)
    /// A failed write may have left bytes after `journalLength`; cut them before the next one.
    private var needsTruncation = false
    /// A rename or a new journal is not yet known to be durable in the folder.
    private var needsDirectorySync = false
    /// The photos' files.
    private var photoFiles: PhotoFiles
    /// A compaction made a new snapshot while a batch was on its way to the disk: the photos
    /// no trip refers to are removed after the batch (`TripStore.removeUnreferencedPhotos`).
    var needsPhotoRemoval = false

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
        photoFiles = PhotoFiles(folder: folder, fileSystem: fileSystem, log: log)
    }

    /// Creates the folder if missing (0700), checks that no one but the server's user can
    /// change it (`DataFolder.checkIsPrivate`), takes its lock and recovers the list.
    ///
    /// The first start of a folder with neither snapshot nor journal writes the sample trips'
    /// photos and then `SampleTrips.list` (or an empty list when `seedSamples` is false) as the
    /// first snapshot; after that, an emptied list stays empty.
    static func open(
        _ path: String, seedSamples: Bool, fileSystem: any FileSystem, log: any StorageLog,
        configuration: StorageConfiguration
    ) throws(StorageError) -> (disk: DiskStore, list: TripList, history: ChangeHistory, ledger: IdempotencyLedger) {
        let folder = DataFolder(path: path)
        try fileSystem.createDirectory(path)
        let status = try fileSystem.status(path)
        try folder.checkIsPrivate(status, user: geteuid())
        if DataFolder.isOpenToOthers(status) {
            log.warning(
                "the data folder \(path) can be read by other users (mode \(String(status.permissions, radix: 8))): chmod 700 \(path)")
        }
        let lockFile = try fileSystem.open(folder.lock, mode: .append)
        var disk = DiskStore(folder: folder, fileSystem: fileSystem, log: log, configuration: configuration, lockFile: lockFile)
        do throws(StorageError) {
            guard try fileSystem.tryLock(lockFile) else { throw .locked(folder: path) }
            try disk.photoFiles.open(folderNames: try fileSystem.contentsOfDirectory(path))
            let (list, history, ledger) = try disk.recover(seedSamples: seedSamples)
            try disk.photoFiles.recover(for: list)
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
        guard names.contains("snapshot") else {
            if let orphan = journals.first {
                throw .corrupt(file: folder.journal(orphan), offset: 0, reason: "the snapshot this journal continues is missing")
            }
            let list = seedSamples ? SampleTrips.list : TripList()
            let history = ChangeHistory(capacity: configuration.historyCapacity, revision: list.revision)
            // As for a change that sets a photo: the files are durable before the record naming them.
            if seedSamples { try writePhotos(SampleTrips.photos) }
            try installSnapshot(of: list, history: history, ledger: configuration.emptyLedger)
            log.info("created the data folder \(folder.path) with \(list.trips.count) trip\(list.trips.count == 1 ? "" : "s")")
            return (list, history, configuration.emptyLedger)
        }
        var snapshot = try Compaction.loadSnapshot(folder: folder, fileSystem: fileSystem, configuration: configuration)
        let snapshotJournal = snapshot.journal
        snapshotSize = (snapshot.bytes, snapshot.state.list.count)
        snapshotGeneration = snapshotJournal
        for stale in journals where stale < snapshotJournal {
            // Folded by a compaction that stopped before removing it; the snapshot covers it.
            try fileSystem.removeFile(folder.journal(stale))
            log.info("removed \(folder.journal(stale)), which the snapshot already covers")
        }
        // The snapshot's generation and every later one, in order, with no gap: a crash during
        // a compaction leaves more than one.
        let live = journals.filter { $0 >= snapshotJournal }
        for (offset, generation) in live.enumerated() where generation != snapshotJournal + UInt64(offset) {
            throw .corrupt(
                file: folder.journal(generation), offset: 0,
                reason: "journal generations after \(snapshotJournal) are not consecutive: \(live)")
        }
        var (list, history, ledger) = snapshot.takeState()
        generation = live.last ?? snapshotJournal
        for replayed in live {
            let path = folder.journal(replayed)
            let bytes = try fileSystem.readFile(path) ?? []
            let replay = try JournalReplay(
                bytes, file: path, onto: consume list, history: consume history, ledger: consume ledger, now: snapshot.now)
            (list, history, ledger) = (replay.list, replay.history, replay.ledger)
            if let tornTail = replay.tornTail {
                log.warning(
                    "\(path): dropped a torn last record, a write a crash interrupted: \(tornTail); truncating to \(replay.validLength) bytes"
                )
                let file = try fileSystem.open(path, mode: .append)
                try fileSystem.truncate(file, to: replay.validLength)
                try fileSystem.synchronize(file)
                try fileSystem.close(file)
            }
            if replayed == generation {
                (journalLength, recordCount) = (replay.validLength, replay.recordCount)
            } else {
                unfolded.bytes += replay.validLength
                unfolded.records += replay.recordCount
            }
        }
        journal = try fileSystem.open(folder.journal(generation), mode: .append)
        if live.isEmpty { try fileSystem.synchronizeDirectory(folder.path) }
        let count = list.trips.count
        log.info("\(count) trip\(count == 1 ? "" : "s") recovered from \(folder.path)")
        return (list, history, ledger)
    }

    /// Whether the journals no snapshot covers have grown past the configured size (and,
    /// unless configured otherwise, past the snapshot they continue), with no compaction
    /// running already.
    var needsCompaction: Bool {
        guard !isCompacting else { return false }
        var byteLimit = configuration.compactionBytes
        var recordLimit = configuration.compactionRecords
        if configuration.growsWithSnapshot {
            byteLimit = max(byteLimit, snapshotSize.bytes)
            recordLimit = max(recordLimit, snapshotSize.trips)
        }
        return unfolded.bytes + journalLength > byteLimit || unfolded.records + recordCount > recordLimit
    }

    /// Closes the current generation and opens the next one for the records to come, and
    /// answers the compaction that folds every closed generation into a new snapshot.
    mutating func beginCompaction() throws(StorageError) -> Compaction {
        let current = try openJournal()
        if needsTruncation {
            try fileSystem.truncate(current, to: journalLength)
            needsTruncation = false
        }
        journal = nil
        try? fileSystem.close(current)  // its records are synced; a close error cannot lose them
        unfolded.bytes += journalLength
        unfolded.records += recordCount
        let closed = generation
        generation += 1
        (journalLength, recordCount) = (0, 0)
        _ = try openJournal()
        isCompacting = true
        return Compaction(folder: folder, fileSystem: fileSystem, log: log, folded: snapshotGeneration...closed, next: generation)
    }

    /// Records how a compaction ended: with the new snapshot's size, or nil when it failed
    /// (its generations stay unfolded, and the next compaction takes them too).
    mutating func finishCompaction(_ compaction: Compaction, snapshot size: (bytes: Int, trips: Int)?) {
        isCompacting = false
        guard let size else { return }
        snapshotGeneration = compaction.next
        snapshotSize = size
        unfolded = (0, 0)
    }

    /// Makes the files of `photos` durable (those not there yet): before the records that
    /// name them are appended.
    mutating func writePhotos(_ photos: [PhotoBytes]) throws(StorageError) {
        try photoFiles.write(photos)
    }

    /// Removes the photos' files no trip of `photos` (the durable list's) refers to; only
    /// while every record on disk is in that list.
    mutating func removeUnreferencedPhotos(keeping photos: TripPhotoIndex) {
        needsPhotoRemoval = false
        photoFiles.removeUnreferenced(keeping: photos)
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

    /// Writes `list` as the first snapshot of a new folder, continued by journal 1.
    mutating func installSnapshot(of list: TripList, history: ChangeHistory, ledger: IdempotencyLedger) throws(StorageError) {
        let next = generation + 1
        let snapshot = Snapshot(list: list, events: history.all, keys: ledger.all, journal: next)
        let bytes = try Compaction.installSnapshot(snapshot, folder: folder, fileSystem: fileSystem)
        generation = next
        snapshotGeneration = next
        snapshotSize = (bytes, list.trips.count)
        (journalLength, recordCount) = (0, 0)
        _ = try openJournal()
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
