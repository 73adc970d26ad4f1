import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsFormats
@testable import TripsPlatform
@testable import TripsServer
@testable import TripsStore

@Suite struct StorageJournalTests {
    @Test func theChecksumIsCRC32C() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        // RFC 3720, B.4: 32 bytes of zeros, of ones, incrementing, decrementing.
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0...31).map(UInt8.init)) == 0x46DD_794E)
        #expect(CRC32C.checksum((0...31).reversed().map(UInt8.init)) == 0x113F_DB5C)
    }

    /// Eight bytes at a time gives what one at a time gives, for every length and every
    /// point a checksum is continued from.
    @Test func theChecksumMatchesTheBytewiseDefinition() {
        func bytewise(_ bytes: ArraySlice<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
            var crc = ~previous
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        let bytes = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in 0...bytes.count {
            let expected = bytewise(bytes[..<length])
            #expect(CRC32C.checksum(Array(bytes[..<length])) == expected)
            #expect(bytes[..<length].withUnsafeBytes { CRC32C.checksumFromTables($0) } == expected)
            for split in stride(from: 0, through: length, by: 7) {
                let first = CRC32C.checksum(Array(bytes[..<split]))
                #expect(bytes[split..<length].withUnsafeBytes { CRC32C.checksum($0, continuing: first) } == expected)
                #expect(bytes[split..<length].withUnsafeBytes { CRC32C.checksumFromTables($0, continuing: first) } == expected)
            }
        }
    }

    /// Where the processor has the instruction (every machine CI runs on), the checksum uses
    /// it, and it agrees with the tables at every alignment: a difference would make every
    /// journal written on one kind of processor unreadable on the other.
    @Test func theInstructionAndTheTablesAgree() {
        #if arch(x86_64)
        #expect(CRC32C.hasInstruction)
        #endif
        var random = SplitMix64(seed: 32)
        let bytes = (0..<4_096).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        bytes.withUnsafeBytes { all in
            for _ in 0..<500 {
                let start = Int.random(in: 0..<all.count, using: &random)
                let end = Int.random(in: start...min(all.count, start + 300), using: &random)
                let slice = UnsafeRawBufferPointer(rebasing: all[start..<end])
                let previous = UInt32.random(in: .min ... .max, using: &random)
                #expect(CRC32C.checksum(slice, continuing: previous) == CRC32C.checksumFromTables(slice, continuing: previous))
            }
        }
    }

    @Test(arguments: everyKindOfChange)
    func everyKindOfRecordReadsBackExactly(_ change: TripChange) throws {
        let record = JournalRecord(revision: 42, change: change)
        #expect(try JournalRecord(payload: record.payload) == record)
    }

    /// Journals written before drops of several trips hold `"draft"`, one trip at the end.
    @Test func anOlderAddRecordStillReads() throws {
        let draft = storageDraft("Lisbon")
        var writer = JSONWriter()
        writer.appendDraft(draft)
        let payload = Array(#"{"revision":7,"op":"add","draft":"#.utf8) + writer.bytes + Array("}".utf8)
        #expect(try JournalRecord(payload: payload) == JournalRecord(revision: 7, change: .add([draft], before: nil)))
    }

    /// A start no trip can have (only a record edited by hand, or a hostile database's, holds
    /// one) is refused when read: rendering it trapped.
    @Test(arguments: ["1e300", "-1e300", "252423993600", "-63113904001"])
    func aRecordedStartOutsideYearsOneTo9999IsRefused(_ start: String) throws {
        var writer = JSONWriter()
        writer.appendDraft(storageDraft("Lisbon"))
        let draft = String(decoding: writer.bytes, as: UTF8.self)
        let startMember = try #require(draft.firstRange(of: #""start":"2027-"#))
        let end = try #require(draft[startMember.upperBound...].firstIndex(of: ","))
        let edited = draft[..<startMember.lowerBound] + #""start":"# + start + draft[end...]
        let payload = Array(#"{"revision":7,"op":"add","drafts":["#.utf8) + Array(edited.utf8) + Array("]}".utf8)
        #expect(throws: StoredJSONError.self) { try JournalRecord(payload: payload) }
        let inRange = draft[..<startMember.lowerBound] + #""start":-63113904000"# + draft[end...]
        let accepted = Array(#"{"revision":7,"op":"add","drafts":["#.utf8) + Array(inRange.utf8) + Array("]}".utf8)
        #expect(throws: Never.self) { try JournalRecord(payload: accepted) }
    }

    @Test func everyKindOfChangeSurvivesARestartExactly() async throws {
        try await withStorageFolder { folder in
            var expected = SampleTrips.list
            let store = try TripStore.open(folder, samples: true)
            for change in everyKindOfChange {
                let mutation = try await store.commit(change)
                try expected.apply(change)
                #expect(mutation.revision == expected.revision)
                #expect(store.list == expected)  // durable once the commit returns
            }
            #expect(store.list == expected)
            store.close()

            let reopened = try TripStore.open(folder, samples: true)
            defer { reopened.close() }
            #expect(reopened.list == expected)  // trips, order, revision, versions, lastIssuedID
            #expect(reopened.list.trips.first { $0.city == "Lisbon" }?.price.description == "0.1")
            #expect(
                reopened.list.trips.first { $0.city == "Lisbon" }?.start
                    == Date(timeIntervalSinceReferenceDate: 800_000_000.123456789))
            #expect(reopened.list.trips.first { $0.city == "Porto" }?.price.description == "1299.99")
            // Ids of deleted trips are never issued again.
            try await reopened.commit(.delete([8]))
            let added = try await reopened.commit(.add(storageDraft("Braga")))
            #expect(added.outcome == .added([Trip(id: 11, draft: storageDraft("Braga"))]))
        }
    }

    @Test func aFreshFolderStartsWithTheSamplesUnlessToldNot() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder + "/nested/data", samples: true)
            #expect(store.list == SampleTrips.list)
            store.close()
        }
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: false)
            #expect(store.list == TripList())
            store.close()
        }
    }

    @Test func anEmptiedListStaysEmptyAfterARestart() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true)
            try await store.commit(.delete(TripList.samples.trips.map(\.id)))
            store.close()
            let reopened = try TripStore.open(folder, samples: true)
            defer { reopened.close() }
            #expect(reopened.list.trips.isEmpty)
            #expect(reopened.list.revision == 1)
            #expect(reopened.list.lastIssuedID == 6)
        }
    }

    /// Writes three changes, and returns the journal and where its last record starts.
    private func journalWithThreeRecords(_ folder: String, last: TripChange) async throws
        -> (bytes: [UInt8], lastRecord: Int, before: TripList)
    {
        let store = try TripStore.open(folder, samples: true)
        try await store.commit(.setFavorite(3, true))
        try await store.commit(.add(storageDraft("Lisbon")))
        let before = store.list
        let journal = folder + "/" + DataFolder.journalName(1)
        let lastRecord = try contents(of: journal).count
        try await store.commit(last)
        store.close()
        return (try contents(of: journal), lastRecord, before)
    }

    @Test(.tags(.slow), arguments: [TripChange.setFavorite(2, true), .add(storageDraft("Sintra"))])
    func aTornLastRecordIsDroppedAtEveryByteOffset(_ last: TripChange) async throws {
        try await withStorageFolder { folder in
            let (bytes, lastRecord, before) = try await journalWithThreeRecords(folder, last: last)
            let journal = folder + "/" + DataFolder.journalName(1)
            for cut in lastRecord + 1..<bytes.count {
                try overwrite(journal, with: Array(bytes[..<cut]))
                let log = CollectingLog()
                let store = try TripStore.open(folder, log: log)
                #expect(store.list == before, "cut at \(cut)")
                #expect(log.warnings.count == 1, "cut at \(cut)")
                #expect(try contents(of: journal).count == lastRecord, "cut at \(cut)")
                store.close()
            }
            // After the repair, appending works and survives another restart.
            let store = try TripStore.open(folder)
            try await store.commit(last)
            let appended = store.list
            store.close()
            let reopened = try TripStore.open(folder)
            defer { reopened.close() }
            #expect(reopened.list == appended)
        }
    }

    @Test func aDamagedLastRecordIsATornWrite() async throws {
        try await withStorageFolder { folder in
            let (bytes, lastRecord, before) = try await journalWithThreeRecords(folder, last: .sort(.price))
            var damaged = bytes
            damaged[bytes.count - 2] ^= 0x20
            try overwrite(folder + "/" + DataFolder.journalName(1), with: damaged)
            let log = CollectingLog()
            let store = try TripStore.open(folder, log: log)
            defer { store.close() }
            #expect(store.list == before)
            #expect(log.warnings.first?.contains("offset \(lastRecord)") == true)
        }
    }

    @Test(arguments: [0, 3, 8, 20])
    func damageBeforeTheLastRecordRefusesToStart(_ position: Int) async throws {
        try await withStorageFolder { folder in
            let (bytes, _, _) = try await journalWithThreeRecords(folder, last: .sort(.price))
            var damaged = bytes
            damaged[position] ^= 0x01
            let journal = folder + "/" + DataFolder.journalName(1)
            try overwrite(journal, with: damaged)
            let error = #expect(throws: StorageError.self) { try TripStore.open(folder) }
            guard case .corrupt(let file, let offset, _) = error else {
                Issue.record("expected .corrupt, got \(String(describing: error))")
                return
            }
            #expect(file == journal)
            #expect(offset == 0)
            #expect(error?.description.contains(journal) == true)
            #expect(try contents(of: journal) == damaged)  // nothing is repaired behind the operator's back
        }
    }

    /// A journal longer than the history: the events of the early records are not built, and
    /// the history (which held events from before the journal) ends up as if it had been
    /// told every change and dropped the oldest.
    @Test(arguments: [5, 12, 14, 60])
    func aLongReplayBuildsOnlyTheEventsTheHistoryKeeps(records: Int) throws {
        var list = TripList.samples
        var told = ChangeHistory(capacity: 10, revision: list.revision)
        func change(_ index: Int) -> TripChange {
            index.isMultiple(of: 3) ? .add([storageDraft("City \(index)")], before: 2) : .setFavorite(2, index.isMultiple(of: 2))
        }
        for index in 0..<4 {  // before the journal: in the snapshot's history
            if let event = try list.applyTelling(change(index)).event { told.append(event) }
        }
        let (snapshotList, snapshotHistory) = (list, told)
        var bytes: [UInt8] = []
        var journaled = 0
        for index in 4..<(4 + records) {
            let revision = list.revision
            if let event = try list.applyTelling(change(index)).event { told.append(event) }
            guard list.revision != revision else { continue }  // the store journals changes only
            RecordFrame.append(payload: JournalRecord(revision: list.revision, change: change(index)).payload, to: &bytes)
            journaled += 1
        }
        let replay = try JournalReplay(bytes, file: "journal", onto: snapshotList, history: snapshotHistory)
        #expect(replay.list == list)
        #expect(replay.recordCount == journaled)
        #expect(replay.history.all == told.all)
        for since in TripList.samples.revision...list.revision {
            #expect(replay.history.events(after: since) == told.events(after: since), "since \(since)")
        }
    }

    @Test func aSnapshotWrittenInPiecesIsTheSameFile() throws {
        var list = TripList.samples
        for index in 0..<40 { try list.add(storageDraft("City \(index)")) }
        let snapshot = Snapshot(list: list, journal: 3)
        var pieces: [[UInt8]] = []
        snapshot.write(pieceSize: 500) { pieces.append($0) }
        #expect(pieces.count > 10)
        #expect(pieces.dropLast().allSatisfy { $0.count >= 500 && $0.count < 500 + 400 })
        #expect(Array(pieces.joined()) == snapshot.bytes)
        #expect(try Snapshot(bytes: Array(pieces.joined()), file: "snapshot") == snapshot)
    }

    @Test func aDamagedSnapshotRefusesToStart() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true)
            store.close()
            let snapshot = folder + "/snapshot"
            var bytes = try contents(of: snapshot)
            bytes[bytes.count - 3] ^= 0x04
            try overwrite(snapshot, with: bytes)
            let error = #expect(throws: StorageError.self) { try TripStore.open(folder) }
            guard case .corrupt(let file, let offset, _) = error else {
                Issue.record("expected .corrupt, got \(String(describing: error))")
                return
            }
            #expect(file == snapshot)
            #expect(offset > 0)
        }
    }

    @Test func aJournalWithoutItsSnapshotRefusesToStart() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true)
            try await store.commit(.sort(.price))
            store.close()
            try FileManager.default.removeItem(atPath: folder + "/snapshot")
            #expect(throws: StorageError.self) { try TripStore.open(folder, samples: true) }
        }
    }

    @Test func theLockKeepsASecondStoreOutUntilTheFirstCloses() async throws {
        try await withStorageFolder { folder in
            let first = try TripStore.open(folder, samples: true)
            let error = #expect(throws: StorageError.self) { try TripStore.open(folder) }
            #expect(error == .locked(folder: folder))
            #expect(error?.description.contains(folder) == true)
            // The first keeps serving.
            #expect(try await first.commit(.sort(.price)).revision == 1)
            first.close()
            let second = try TripStore.open(folder)
            defer { second.close() }
            #expect(second.list.revision == 1)
        }
    }
}
