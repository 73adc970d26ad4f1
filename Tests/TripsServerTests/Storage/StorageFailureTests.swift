import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import TripsDomain
@testable import TripsServer
@testable import TripsStore

@Suite struct StorageFailureTests {
    @Test(arguments: [
        (FaultyFileSystem.Operation.write, ENOSPC, true),
        (.write, ENOSPC, false),
        (.write, EFBIG, true),  // past RLIMIT_FSIZE, with SIGXFSZ ignored
        (.synchronizeData, EIO, false),
    ])
    func aFailedWriteFailsTheChangeAndTheNextOneWorks(_ operation: FaultyFileSystem.Operation, _ code: Int32, _ partial: Bool)
        async throws
    {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files)
            try await store.commit(.setFavorite(3, true))
            let before = store.list
            let journal = folder + "/" + DataFolder.journalName(1)
            let length = try contents(of: journal).count

            files.failNext(operation, errno: code, partial: partial)
            let failed = await store.apply(.add(storageDraft("Lisbon")))
            #expect(failed.storageError?.isOutOfSpace == (code != EIO))
            #expect(failed.storageError != nil)
            #expect(store.list == before)
            #expect(try contents(of: journal).count == length)  // cut back: no half record left

            // Space is back: the same change works, under the id the failed one did not use up.
            let added = try await store.commit(.add(storageDraft("Lisbon")))
            #expect(added.revision == before.revision + 1)
            let after = store.list
            #expect(after.lastIssuedID == 7)
            store.close()
            let reopened = try TripStore.open(folder)
            defer { reopened.close() }
            #expect(reopened.list == after)
        }
    }

    @Test func changesQueuedBehindAFailedBatchFailToo() async throws {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files)
            defer { store.close() }
            let gate = files.holdNextDataSync()
            files.failNext(.synchronizeData, errno: EIO)
            let plans: [@Sendable (TripList) throws(MutationError) -> TripChange?] = [
                { _ in .setFavorite(3, true) },
                { _ in .setFavorite(4, true) },  // planned on top of the change that is about to fail
                { _ in nil },
                { _ in .delete([99]) },
            ]
            let results = Mutex<[Result<Mutation, MutationError>]>([])
            let done = DispatchSemaphore(value: 0)
            for (index, plan) in plans.enumerated() {
                store.mutate(plan) { result in
                    let count = results.withLock {
                        $0.append(result)
                        return $0.count
                    }
                    if count == plans.count { done.signal() }
                }
                if index == 0 { gate.entered.wait() }
            }
            gate.release.signal()
            done.wait()
            for result in results.withLock({ $0 }) { #expect(result.storageError != nil) }
            #expect(store.list == SampleTrips.list)
            #expect(try await store.commit(.setFavorite(4, true)).revision == 1)
        }
    }

    @Test func aMissingFolderParentThatIsAFileIsAnIOError() async throws {
        try await withStorageFolder { folder in
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try overwrite(folder + "/file", with: [1])
            let error = #expect(throws: StorageError.self) { try TripStore.open(folder + "/file") }
            guard case .io = error else {
                Issue.record("expected .io, got \(String(describing: error))")
                return
            }
        }
    }
}
