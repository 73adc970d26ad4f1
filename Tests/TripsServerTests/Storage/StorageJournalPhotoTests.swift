import Foundation
import Testing
import TripsDomain

@testable import TripsServer
@testable import TripsStore

/// The journal store's photos: files under `photos/`, durable before the records that name them.
@Suite struct StorageJournalPhotoTests {
    private func photoNames(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder + "/photos").sorted()
    }

    @Test func aPhotosFileIsDurableBeforeItsRecordAndIsThereAfterAReopen() async throws {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files)
            let photo = examplePhotoBytes(1)
            let before = files.operations.count
            try await store.setPhoto(2, photo)
            #expect(
                files.operations[before...] == [
                    .removeFile, .open, .write, .synchronize, .close, .rename, .synchronizeDirectory,  // the photo's file
                    .write, .synchronizeData,  // then the record that names it
                ])
            store.close()
            // Trip 2's sample photo, let go, stays until the next start.
            #expect(try photoNames(folder) == (samplePhotos().digests + [photo.photo.digest]).sorted())
            #expect(try contents(of: folder + "/photos/" + photo.photo.digest) == photo.bytes)

            let reopened = try TripStore.open(folder)
            defer { reopened.close() }
            #expect(reopened.list[2]?.photo == photo.photo)
            #expect(try reopened.photo(digest: photo.photo.digest) == photo)
        }
    }

    @Test func theSamePhotoOnTwoTripsIsOneFileWrittenOnce() async throws {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files)
            defer { store.close() }
            let photo = examplePhotoBytes(2)
            try await store.setPhoto(1, photo)
            let renames = files.count(.rename)
            try await store.setPhoto(4, photo)
            #expect(files.count(.rename) == renames)
            #expect(try photoNames(folder) == (samplePhotos().digests + [photo.photo.digest]).sorted())
        }
    }

    @Test func startUpRemovesPhotosNoTripRefersToAndHalfWrittenOnes() async throws {
        try await withStorageFolder { folder in
            let kept = examplePhotoBytes(3)
            let store = try TripStore.open(folder, samples: true)
            try await store.setPhoto(2, kept)
            try await store.setPhoto(3, examplePhotoBytes(4))
            try await store.setPhoto(3, nil)
            store.close()
            let orphan = examplePhotoBytes(4).photo.digest
            let other = examplePhotoBytes(5).photo.digest
            try overwrite(folder + "/photos/" + other + ".tmp", with: [1, 2, 3])  // a crash during a write
            try overwrite(folder + "/photos/README", with: [])  // not ours: left alone
            #expect(
                try photoNames(folder) == (samplePhotos().digests + [kept.photo.digest, orphan, other + ".tmp", "README"]).sorted())

            let log = CollectingLog()
            let reopened = try TripStore.open(folder, log: log)
            defer { reopened.close() }
            #expect(try photoNames(folder) == (samplePhotos(but: 2, 3).digests + [kept.photo.digest, "README"]).sorted())
            #expect(try reopened.photo(digest: kept.photo.digest) == kept)
            #expect(log.warnings.contains { $0.contains("README") })
        }
    }

    @Test func aTripWhosePhotoFileIsMissingKeepsTheStoreFromStarting() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true)
            let photo = examplePhotoBytes(6)
            try await store.setPhoto(2, photo)
            store.close()
            try FileManager.default.removeItem(atPath: folder + "/photos/" + photo.photo.digest)
            #expect(
                throws: StorageError.corrupt(
                    file: folder + "/photos/" + photo.photo.digest, offset: 0,
                    reason: "trip 2 has this photo, and its file is missing")
            ) { try TripStore.open(folder) }
        }
    }

    @Test func aFileOfTheWrongLengthIsNotServed() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true)
            defer { store.close() }
            let photo = examplePhotoBytes(7)
            try await store.setPhoto(2, photo)
            try overwrite(folder + "/photos/" + photo.photo.digest, with: [1, 2, 3])
            #expect(throws: StorageError.self) { try store.photo(digest: photo.photo.digest) }
        }
    }

    @Test func aCompactionRemovesThePhotosNoTripRefersToAnyMore() async throws {
        let (first, second) = (examplePhotoBytes(8), examplePhotoBytes(9))
        try await withStorageFolder { folder in
            // Without a compaction, the file of a photo let go stays (until the next start).
            let store = try TripStore.open(folder, samples: true)
            try await store.setPhoto(2, first)
            try await store.setPhoto(2, second)
            store.close()
            #expect(try photoNames(folder) == (samplePhotos().digests + [first.photo.digest, second.photo.digest]).sorted())
        }
        try await withStorageFolder { folder in
            let tiny = StorageConfiguration(compactionBytes: 1 << 20, compactionRecords: 1, growsWithSnapshot: false)
            let store = try TripStore.open(folder, samples: true, configuration: tiny)
            try await store.setPhoto(2, first)
            try await store.setPhoto(2, second)  // the second record starts a compaction, which lets the first go
            store.close()  // waits for the compaction
            #expect(store.statistics.store.compactions == 1)
            #expect(try photoNames(folder) == (samplePhotos(but: 2).digests + [second.photo.digest]).sorted())
            let reopened = try TripStore.open(folder)
            defer { reopened.close() }
            #expect(try reopened.photo(digest: second.photo.digest) == second)
        }
    }

    @Test func aPhotoThatCannotBeWrittenRefusesItsChangeAndTheNextOneWorks() async throws {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files)
            defer { store.close() }
            let photo = examplePhotoBytes(10)
            files.failNext(.rename, errno: ENOSPC)
            let failed = await store.photoResult(2, photo)
            #expect(failed.storageError?.isOutOfSpace == true)
            #expect(store.list[2]?.photo == SampleTrips.list[2]?.photo && store.list.revision == 0)
            #expect(try photoNames(folder) == samplePhotos().digests.sorted())  // the temporary file went with the failure
            try await store.setPhoto(2, photo)
            #expect(try store.photo(digest: photo.photo.digest) == photo)
        }
    }

    /// Stops the process's file operations at every step of a photo's change in turn, then
    /// starts again: an acknowledged photo is there, and a trip never names a missing file.
    @Test func aCrashAtAnyStepLosesNoAcknowledgedPhotoAndLeavesNoDanglingOne() async throws {
        let photo = examplePhotoBytes(11)
        for step in 0..<12 {
            try await withStorageFolder { folder in
                let files = FaultyFileSystem()
                let store = try TripStore.open(folder, samples: true, fileSystem: files)
                files.crash(afterOperations: step)
                let acknowledged = await store.photoResult(2, photo).succeeded
                store.close()
                let reopened = try TripStore.open(folder)
                defer { reopened.close() }
                if acknowledged { #expect(reopened.list[2]?.photo == photo.photo, "step \(step)") }
                let isSet = reopened.list[2]?.photo == photo.photo
                if isSet { #expect(try reopened.photo(digest: photo.photo.digest) == photo, "step \(step)") }
                // Otherwise trip 2 keeps its sample photo, and start-up removed a file the crash left.
                let expected = isSet ? samplePhotos(but: 2).digests + [photo.photo.digest] : samplePhotos().digests
                #expect(try photoNames(folder) == expected.sorted(), "step \(step)")
            }
        }
    }
}
