import Foundation
import Glibc
import Testing
import TripsDomain

@testable import TripsServer

/// `Idempotency-Key`: a retried change is answered again, not made again.
@Suite struct APIIdempotencyTests {
    private let lisbon = #"{"city":"Lisbon","country":"Portugal","nights":4,"price":1,"start":"2027-05-01"}"#

    @Test(arguments: TestStore.all) func aRetryGetsTheFirstAnswerAndMakesNoSecondChange(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        let first = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "create-lisbon-1"])
        let retry = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "create-lisbon-1"])
        #expect(first.status == 201 && retry.status == 201)
        #expect(retry.body == first.body)
        #expect(retry.field("Location") == "/trips/7")
        #expect(retry.field("ETag") == first.field("ETag"))
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7])
        let another = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "create-lisbon-2"])
        #expect(another.field("Location") == "/trips/8")
        // A drop, a reorder and a sort take keys too.
        for (method, target, body) in [("POST", "/favorites", "[3]"), ("POST", "/trips/reorder", #"{"sources":[1],"destination":"end"}"#)] {
            let once = try await api.json(method, target, body, headers: ["Idempotency-Key": "k-\(target)"])
            let twice = try await api.json(method, target, body, headers: ["Idempotency-Key": "k-\(target)"])
            #expect(twice.body == once.body && twice.status == once.status, "\(target)")
        }
        #expect(api.store.list.revision == 4)
    }

    @Test(arguments: TestStore.all) func theSameKeyWithADifferentRequestIs422(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        _ = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "k"])
        let other = try await api.json(
            "POST", "/trips", lisbon.replacingOccurrences(of: "Lisbon", with: "Porto"), headers: ["Idempotency-Key": "k"])
        #expect(other.status == 422)
        #expect(try other.member("member") == .string("Idempotency-Key"))
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test(arguments: ["", String(repeating: "k", count: 256), "a b", "ключ"])
    func aKeyThatIsNot1To255VisibleCharactersIs400(key: String) async throws {
        let api = try await APIServer()
        #expect(try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": key]).status == 400)
        #expect(api.store.list == TripList.samples)
    }

    @Test func aRetryWhileTheFirstIsInFlightIs409() async throws {
        try await withStorageFolder { folder in
            let disk = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: disk)
            defer { store.close() }
            let api = try await APIServer(store: store)
            let gate = disk.holdNextDataSync()
            let first = Task { try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "slow"]) }
            try await onOwnThread { gate.entered.wait() }  // the first is on its way to the disk
            let retry = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "slow"])
            #expect(retry.status == 409)
            #expect(retry.field("Retry-After") == "1")
            gate.release.signal()
            #expect(try await first.value.status == 201)
            #expect(try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "slow"]).field("Location") == "/trips/7")
        }
    }

    /// The key is in the journal record of the change, and in the snapshot after compaction.
    @Test func keysSurviveARestartAndACompaction() async throws {
        try await withStorageFolder { folder in
            let compacting = StorageConfiguration(compactionBytes: 1, compactionRecords: 1, growsWithSnapshot: false)
            for configuration in [StorageConfiguration(), compacting] {
                try? FileManager.default.removeItem(atPath: folder + "/data")
                let store = try TripStore.open(folder + "/data", samples: true, configuration: configuration)
                let api = try await APIServer(store: store)
                let first = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "durable"])
                _ = try await api.request("PUT", "/favorites/2")  // another change after it
                store.close()
                let reopened = try TripStore.open(folder + "/data", samples: true, configuration: configuration)
                defer { reopened.close() }
                let again = try await APIServer(store: reopened)
                let retry = try await again.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "durable"])
                #expect(retry.status == 201)
                #expect(retry.body == first.body)
                #expect(again.order == [1, 2, 3, 4, 5, 6, 7])
            }
        }
    }

    /// kill -9 right after the answer: the retry gets it again from the journal.
    @Test func aRetryAfterKillNineIsAnsweredFromTheJournal() async throws {
        let executable = try tripsServerExecutable()
        try await withStorageFolder { folder in
            let body = lisbon
            let (first, retry, trips) = try await onOwnThread { () throws -> (TestResponse, TestResponse, [Int]) in
                let server = try ChildServer(executable: executable, folder: folder)
                let request = TestRequest(
                    method: "POST", target: "/trips", headers: ["Content-Type": "application/json", "Idempotency-Key": "crash-1"],
                    body: body)
                let first = try TestClient(port: try server.waitUntilListening()).exchange(request)
                server.stop()  // SIGKILL
                let restarted = try ChildServer(executable: executable, folder: folder)
                defer { restarted.stop() }
                let client = try TestClient(port: try restarted.waitUntilListening())
                let retry = try client.exchange(request)
                return (first, retry, try client.exchange(TestRequest(method: "GET", target: "/trips")).ids)
            }
            #expect(first.status == 201)
            #expect(retry.status == 201 && retry.body == first.body)
            #expect(trips.count == 1)
        }
    }
}
