import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsServer
@testable import TripsStore

@Suite struct StorageCompactionTests {
    /// Compacts after every two records.
    private let tiny = StorageConfiguration(compactionBytes: 1 << 20, compactionRecords: 2, growsWithSnapshot: false)

    private func journals(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(DataFolder.journalPrefix) }.sorted()
    }

    @Test func aCompactedFolderReopensToTheSameList() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true, configuration: tiny)
            for change in everyKindOfChange { try await store.commit(change) }
            let expected = store.list
            store.close()
            let remaining = try journals(in: folder)
            #expect(remaining.count == 1)
            #expect(remaining.first != DataFolder.journalName(1))
            #expect(!FileManager.default.fileExists(atPath: folder + "/snapshot.tmp"))

            let reopened = try TripStore.open(folder, configuration: tiny)
            defer { reopened.close() }
            #expect(reopened.list == expected)
        }
    }

    @Test func aBigJournalIsCompactedByBytesToo() async throws {
        try await withStorageFolder { folder in
            let bySize = StorageConfiguration(compactionBytes: 600, compactionRecords: 1000, growsWithSnapshot: false)
            let store = try TripStore.open(folder, samples: true, configuration: bySize)
            for index in 0..<6 { try await store.commit(.add(storageDraft("City \(index)"))) }
            let expected = store.list
            store.close()
            #expect(try journals(in: folder) != [DataFolder.journalName(1)])
            #expect(try contents(of: folder + "/" + journals(in: folder)[0]).count <= 600)
            let reopened = try TripStore.open(folder)
            defer { reopened.close() }
            #expect(reopened.list == expected)
        }
    }

    @Test func aJournalMustOutgrowTheSnapshotBeforeItIsCompacted() async throws {
        try await withStorageFolder { folder in
            // Six sample trips in the snapshot: a limit of two records waits for seven.
            let proportional = StorageConfiguration(compactionBytes: 1 << 20, compactionRecords: 2)
            let store = try TripStore.open(folder, samples: true, configuration: proportional)
            for index in 0..<6 { try await store.commit(.add(storageDraft("City \(index)"))) }
            #expect(try journals(in: folder) == [DataFolder.journalName(1)])
            try await store.commit(.add(storageDraft("City 6")))
            let expected = store.list
            store.close()
            #expect(try journals(in: folder) == [DataFolder.journalName(2)])
            let reopened = try TripStore.open(folder, configuration: proportional)
            defer { reopened.close() }
            #expect(reopened.list == expected)
        }
    }

    /// A store whose first compaction is held inside its snapshot's fsync, until `gate` is released.
    private func storeInItsFirstCompaction(_ folder: String) async throws -> (TripStore, FaultyFileSystem.Gate) {
        let files = FaultyFileSystem()
        let store = try TripStore.open(folder, samples: true, fileSystem: files, configuration: tiny)
        let gate = files.holdNextSnapshotSync()  // the first compaction's, not the new folder's
        for index in 0..<3 { try await store.commit(.add(storageDraft("Before \(index)"))) }
        try #require(gate.entered.wait(timeout: .now() + .seconds(10 * TestTimeout.scale)) == .success, "no compaction started")
        return (store, gate)
    }

    /// A compaction folds the closed journal on a thread of its own: with its snapshot held
    /// half written, changes still commit, and a second threshold starts no second compaction.
    @Test func writesGoOnWhileACompactionWritesItsSnapshot() async throws {
        try await withStorageFolder { folder in
            let (store, gate) = try await storeInItsFirstCompaction(folder)
            // The compaction is stuck in its snapshot's fsync; every change is acknowledged anyway.
            for index in 0..<8 { try await store.commit(.add(storageDraft("During \(index)"))) }
            #expect(try journals(in: folder) == [DataFolder.journalName(1), DataFolder.journalName(2)])
            // It runs at a lower priority than the threads that answer requests.
            #expect(try niceValuesOfThreads().contains(10))
            let expected = store.list
            gate.release.signal()
            store.close()  // waits for the compaction
            #expect(try journals(in: folder) == [DataFolder.journalName(2)])
            let reopened = try TripStore.open(folder, configuration: tiny)
            defer { reopened.close() }
            #expect(reopened.list == expected)
        }
    }

    /// A crash during a compaction leaves the snapshot's journal and the next one: start-up
    /// replays both in order, and removes one the snapshot already covers.
    @Test func startUpReplaysEveryLiveGenerationInOrder() async throws {
        try await withStorageFolder { folder in
            let (store, gate) = try await storeInItsFirstCompaction(folder)
            try await store.commit(.add(storageDraft("After")))
            let expected = store.list
            // Copy the folder as a crash right now would leave it: two journals, the old snapshot.
            let copy = folder + "-crashed"
            try FileManager.default.copyItem(atPath: folder, toPath: copy)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            try? FileManager.default.removeItem(atPath: copy + "/snapshot.tmp")
            gate.release.signal()
            store.close()
            #expect(try journals(in: copy) == [DataFolder.journalName(1), DataFolder.journalName(2)])
            let recovered = try TripStore.open(copy, configuration: tiny)
            #expect(recovered.list == expected)
            recovered.close()

            // A gap between generations is damage, not a crash: refused.
            let last = try #require(journals(in: copy).last.flatMap(DataFolder.generation(ofJournal:)))
            #expect(FileManager.default.createFile(atPath: copy + "/" + DataFolder.journalName(last + 2), contents: Data([1])))
            #expect(throws: StorageError.self) { try TripStore.open(copy, configuration: tiny) }
        }
    }

    @Test func aSnapshotGoesToTheDiskPieceByPieceAsItIsWritten() async throws {
        try await withStorageFolder { folder in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            var list = TripList.samples
            for index in 0..<40 { try list.add(storageDraft("City \(index)")) }
            let snapshot = Snapshot(list: list, journal: 2)
            let files = FaultyFileSystem()
            let size = try Compaction.installSnapshot(snapshot, folder: DataFolder(path: folder), fileSystem: files, pieceSize: 500)
            #expect(try contents(of: folder + "/snapshot") == snapshot.bytes)

            // Every piece is started as soon as it is written, and waited for once the next one is:
            // the final fsync never finds more than two pieces unwritten.
            let started = files.writeBacks.filter { !$0.waiting }.map(\.range)
            let waited = files.writeBacks.filter(\.waiting).map(\.range)
            #expect(started.count > 10)
            #expect(started.first?.lowerBound == 0 && started.last?.upperBound == size)
            #expect(zip(started, started.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            #expect(waited == Array(started.dropLast()))
            let order = files.operations.filter { [.write, .writeBack, .synchronize].contains($0) }
            #expect(order.prefix(5) == [.write, .writeBack, .write, .writeBack, .writeBack])
            #expect(order.last == .synchronize)
        }
    }

    @Test func theReplacedSnapshotAndFoldedJournalsAreFreedSliceBySlice() async throws {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files, configuration: tiny)
            try await store.commit(.setFavorite(2, true))
            try await store.commit(.add(storageDraft("Lisbon")))
            try await store.commit(.sort(.price))
            store.close()  // waits for the compaction the third change triggered
            let operations = files.operations
            let lastRename = try #require(operations.lastIndex(of: .rename))
            #expect(
                Array(operations[lastRename...]) == [
                    .rename, .synchronizeDirectory,
                    .size, .truncate, .close,  // the old snapshot, held open across the rename
                    .open, .removeFile, .size, .truncate, .close,  // the folded journal: unlinked, then freed
                    .close, .close,  // the store's journal and lock, at close
                ])
            #expect(try journals(in: folder).count == 1)
        }

        try await withStorageFolder { folder in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = folder + "/doomed"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(count: 10_000)))
            let files = FaultyFileSystem()
            Compaction.shrinkAway(try files.open(path, mode: .append), fileSystem: files, slice: 4_096)
            #expect(files.operations == [.open, .size, .truncate, .truncate, .truncate, .close])
            #expect(try contents(of: path).isEmpty)
        }
    }

    /// Runs the change that triggers a compaction with the file layer dying after `step`
    /// operations; returns whether the crash happened, and checks the reopened folder.
    private func crashDuringCompaction(at step: Int) async throws -> Bool {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files, configuration: tiny)
            try await store.commit(.setFavorite(2, true))
            try await store.commit(.add(storageDraft("Lisbon")))
            let before = store.list
            files.crash(afterOperations: step)
            let result = await store.apply(.move(ReorderDifference(sources: [7], destination: .before(1))))
            let acknowledged = store.list
            store.close()  // waits for the compaction the change triggered
            let crashed = files.hasCrashed

            let reopened = try TripStore.open(folder, configuration: tiny)
            let recovered = reopened.list
            switch result {
            case .success(let mutation):
                #expect(acknowledged.revision == mutation.revision)
                #expect(recovered == acknowledged, "crash after \(step) operations")
            case .failure:
                // Not acknowledged: the write may or may not have reached the file before the "crash".
                #expect(recovered == before || recovered.revision == before.revision + 1, "crash after \(step) operations")
                #expect(recovered.revision <= before.revision + 1)
            }
            // The folder keeps working, and says the same after one more restart.
            try await reopened.commit(.sort(.price))
            let next = reopened.list
            reopened.close()
            let again = try TripStore.open(folder, configuration: tiny)
            #expect(again.list == next)
            #expect(try journals(in: folder).count == 1)
            again.close()
            return crashed
        }
    }

    @Test(.tags(.slow)) func aCompactionInterruptedAtAnyStepLosesAndDoublesNothing() async throws {
        var step = 0
        while try await crashDuringCompaction(at: step) {
            step += 1
            try #require(step < 60, "the compaction never finished")
        }
        #expect(step >= 8)  // write, sync, open, write, fsync, close, rename, fsync folder, …
    }

    /// Two changes, then a failure at operation `step` (nil: none) counted from the start of the
    /// change that triggers a compaction; checks the store and the reopened folder agree.
    /// Returns the operations from that change on.
    @discardableResult
    private func failDuringCompaction(at step: Int?) async throws -> [FaultyFileSystem.Operation] {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files, configuration: tiny)
            try await store.commit(.setFavorite(2, true))
            try await store.commit(.add(storageDraft("Lisbon")))
            let start = files.operations.count
            if let step { files.failOnce(afterOperations: step) }
            _ = await store.apply(.sort(.start))
            // Whatever failed, the store keeps memory equal to disk and works again.
            let faro = await store.apply(.add(storageDraft("Faro")))
            let last = try await faro.succeeded ? faro.get() : store.commit(.add(storageDraft("Faro")))
            let memory = store.list
            #expect(memory.revision == last.revision)
            #expect(Array(memory.trips).last?.city == "Faro")
            store.close()
            let reopened = try TripStore.open(folder, configuration: tiny)
            defer { reopened.close() }
            #expect(reopened.list == memory, "failure at operation \(step ?? -1)")
            return Array(files.operations[start...])
        }
    }

    @Test(.tags(.slow)) func aFailedCompactionStepLeavesTheStoreWorking() async throws {
        let operations = try await failDuringCompaction(at: nil)
        // The change's write and sync, then the compaction up to removing the old journal
        // (the first removal after the rename: a stale snapshot.tmp is removed before it).
        let rename = try #require(operations.firstIndex(of: .rename))
        let compaction = try #require(operations[rename...].firstIndex(of: .removeFile))
        for step in 0...compaction { try await failDuringCompaction(at: step) }
    }
}

/// The nice value of each of this process's threads, from /proc/self/task/*/stat (Foundation
/// does not give Linux our thread names, so they cannot be picked out by name).
func niceValuesOfThreads() throws -> [Int] {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
        // A thread may end between the listing and the read.
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8) else { return nil }
        // After the name in parentheses: state is field 3, nice is field 19.
        guard let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 16 else { return nil }
        return Int(fields[16])
    }
}
