import Dispatch
import Foundation
import Synchronization
import Testing
import TripsDomain
@testable import TripsServer
@testable import TripsStore

@Suite struct StorageGroupCommitTests {
    @Test func concurrentChangesShareOneSyncAndCompleteInOrder() async throws {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files)
            let gate = files.holdNextDataSync()
            let threads = 4
            let perThread = 50
            let total = 1 + threads * perThread
            let revisions = Mutex<[UInt64]>([])
            let failures = Mutex(0)

            let allDone: Void = await withCheckedContinuation { continuation in
                let complete: @Sendable (Result<Mutation, MutationError>) -> Void = { result in
                    switch result {
                    case .success(let mutation): revisions.withLock { $0.append(mutation.revision) }
                    case .failure: failures.withLock { $0 += 1 }
                    }
                    if revisions.withLock({ $0.count }) + failures.withLock({ $0 }) == total { continuation.resume() }
                }
                store.mutate({ _ in .setFavorite(1, false) }, completion: complete)
                gate.entered.wait()  // the writer now sits in the first fdatasync
                DispatchQueue.concurrentPerform(iterations: threads) { thread in
                    for index in 0..<perThread {
                        store.mutate({ _ in .add(storageDraft("City \(thread)-\(index)")) }, completion: complete)
                    }
                }
                gate.release.signal()
            }
            _ = allDone
            store.close()
            #expect(failures.withLock { $0 } == 0)
            #expect(revisions.withLock { $0 } == Array(1...UInt64(total)))  // completions in commit order
            #expect(files.count(.synchronizeData) == 2)  // the first change, then everything queued behind it

            let reopened = try TripStore.open(folder)
            defer { reopened.close() }
            #expect(reopened.list.trips.count == 6 + threads * perThread)
            #expect(reopened.list.revision == UInt64(total))
        }
    }

    @Test func aNoOpWaitsForTheChangesBeforeIt() async throws {
        try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: files)
            defer { store.close() }
            let gate = files.holdNextDataSync()
            let completed = Mutex<[String]>([])
            let done = DispatchSemaphore(value: 0)
            store.mutate({ _ in .setFavorite(3, true) }) { _ in
                completed.withLock { $0.append("change") }
            }
            gate.entered.wait()
            store.mutate({ _ in nil }) { result in
                if case .success(let mutation) = result, mutation.outcome == nil, mutation.revision == 1 {
                    completed.withLock { $0.append("no-op") }
                }
                done.signal()
            }
            // The read side still shows the durable list, without the change in flight.
            #expect(store.list.revision == 0)
            #expect(completed.withLock { $0 }.isEmpty)
            gate.release.signal()
            done.wait()
            #expect(completed.withLock { $0 } == ["change", "no-op"])
            #expect(store.list.revision == 1)
        }
    }
}
