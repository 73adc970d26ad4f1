import Dispatch
import Foundation
import Glibc
import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

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
        #expect(api.store.list == SampleTrips.list)
    }

    /// 120 trips: a sort's answer, the whole list, is larger than the 16 KiB a key keeps.
    private static func longList(_ api: APIServer) async throws {
        let drafts = (0..<114).map { index in
            #"{"city":"City \#(index)","country":"Country","nights":2,"price":\#(1_000 - index),"start":"2027-05-01"}"#
        }
        let created = try await api.json("POST", "/trips", "[" + drafts.joined(separator: ",") + "]")
        #expect(created.status == 201)
    }

    /// A small answer is kept whole; a large one (the list a sort answers with) is not: a
    /// retry gets the list as it is now, with the first answer's status, `ETag` and
    /// `Trips-Revision`, which name what the sort made.
    @Test(arguments: TestStore.all) func aRetryOfALargeAnswerIsMadeFromTheListAsItIsNow(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        try await Self.longList(api)
        let sort = try await api.json("POST", "/trips/sort", #"{"by":"price"}"#, headers: ["Idempotency-Key": "sort-1"])
        #expect(sort.status == 200 && sort.body.count > StoredAnswer.maximumBodyBytes)
        #expect(try await api.request("PUT", "/favorites/2").status == 200)  // a change after it
        let retry = try await api.json("POST", "/trips/sort", #"{"by":"price"}"#, headers: ["Idempotency-Key": "sort-1"])
        let now = try await api.request("GET", "/trips")
        #expect(retry.status == 200)
        #expect(retry.field("ETag") == sort.field("ETag") && retry.field("Trips-Revision") == sort.field("Trips-Revision"))
        #expect(retry.body == now.body && retry.body != sort.body)
        #expect(retry.field("Content-Type") == sort.field("Content-Type"))
        // A small answer is the first one, byte for byte, whatever changed since.
        let favorite = try await api.request("PUT", "/favorites/3", headers: ["Idempotency-Key": "fav-3"])
        #expect(try await api.json("PATCH", "/trips/3", #"{"nights": 9}"#).status == 200)
        let again = try await api.request("PUT", "/favorites/3", headers: ["Idempotency-Key": "fav-3"])
        #expect(again.body == favorite.body && again.field("ETag") == favorite.field("ETag"))
        // One trip too large to keep (notes of 9,000 two-byte characters), deleted since:
        // nothing is left to answer with.
        let notes = String(repeating: "é", count: 9_000)
        let large = #"{"city":"Oslo","country":"Norway","nights":2,"price":1,"start":"2027-05-01","notes":"\#(notes)"}"#
        let created = try await api.json("POST", "/trips", large, headers: ["Idempotency-Key": "large"])
        #expect(created.status == 201)
        let location = try #require(created.field("Location"))
        let retried = try await api.json("POST", "/trips", large, headers: ["Idempotency-Key": "large"])
        #expect(retried.status == 201 && retried.field("Location") == location && retried.body == created.body)
        #expect(try await api.request("DELETE", location).status == 204)
        #expect(try await api.json("POST", "/trips", large, headers: ["Idempotency-Key": "large"]).status == 404)
    }

    /// What a key keeps of a large answer is what the change did, not the answer: the ledger
    /// holds a few hundred bytes for a sort of 120 trips, and so does the journal.
    @Test func aLargeAnswerIsNotKeptInTheLedgerOrTheJournal() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true)
            let api = try await APIServer(store: store)
            try await Self.longList(api)
            let before = try journalBytes(folder)
            #expect(try await api.json("POST", "/trips/sort", #"{"by":"price"}"#, headers: ["Idempotency-Key": "s"]).status == 200)
            #expect(try journalBytes(folder) - before < 1_000)
            store.close()
            let reopened = try TripStore.open(folder, samples: true)
            defer { reopened.close() }
            let again = try await APIServer(store: reopened)
            let retry = try await again.json("POST", "/trips/sort", #"{"by":"price"}"#, headers: ["Idempotency-Key": "s"])
            let now = try await again.request("GET", "/trips")
            #expect(retry.status == 200 && retry.body == now.body)
        }
    }

    /// Past `--idempotency-bytes`, the oldest keys are forgotten first, however recent: a
    /// retry of one makes the change again.
    @Test(arguments: TestStore.all) func theLedgerForgetsItsOldestKeysPastItsByteCap(store: TestStore) async throws {
        let api = try await APIServer(on: store, configuration: StorageConfiguration(idempotencyBytes: 2_000))
        defer { api.stop() }
        var locations: [String] = []
        for index in 0..<10 {
            let created = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "cap-\(index)"])
            locations.append(try #require(created.field("Location")))
        }
        let newest = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "cap-9"])
        #expect(newest.field("Location") == locations[9])
        let oldest = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "cap-0"])
        #expect(oldest.status == 201 && oldest.field("Location") == "/trips/17")  // forgotten: made again
    }

    /// With tokens, a key is the token's own: alice's `K` and bob's `K` are two keys.
    @Test(arguments: TestStore.all) func keysAreScopedByTheTokensName(store: TestStore) async throws {
        let tokens = AccessTokens([(name: "alice", token: "alice-0123456789abcdef"), (name: "bob", token: "bob-0123456789abcdef")])
        let api = try await APIServer(on: store, access: AccessPolicy(tokens: tokens, isPrivate: false))
        defer { api.stop() }
        func create(as token: String) async throws -> TestResponse {
            try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "K", "Authorization": "Bearer \(token)"])
        }
        #expect(try await create(as: "alice-0123456789abcdef").field("Location") == "/trips/7")
        #expect(try await create(as: "bob-0123456789abcdef").field("Location") == "/trips/8")
        #expect(try await create(as: "alice-0123456789abcdef").field("Location") == "/trips/7")
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    /// Two bodies whose FNV-1a fingerprints (what keys were compared by before SHA-256) are the
    /// same, found by a cycle search: the second is a different request, refused with 422, not
    /// answered with the first's trip.
    @Test(arguments: TestStore.all) func requestsThatCollideUnderFNVAreDifferentRequests(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let (first, second) = (Self.fnvCollision.0, Self.fnvCollision.1)
        #expect(Self.fnv(first) == Self.fnv(second) && first != second)
        #expect(try await api.json("POST", "/trips", first, headers: ["Idempotency-Key": "fnv"]).status == 201)
        let other = try await api.json("POST", "/trips", second, headers: ["Idempotency-Key": "fnv"])
        #expect(other.status == 422)
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7])
    }

    private static let fnvCollision = (
        #"{"city":"Lisbon","country":"Portugal","nights":4,"price":1,"start":"2027-05-01","notes":"89d6c6aa925d6e32"}"#,
        #"{"city":"Lisbon","country":"Portugal","nights":4,"price":1,"start":"2027-05-01","notes":"2ddfc12f6294d69f"}"#
    )

    /// The fingerprint keys were compared by before: FNV-1a over method, target, body type
    /// and body, each followed by 0xff, and the body's length.
    private static func fnv(_ body: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in ["POST", "/trips", "application/json", body] {
            for byte in Array(part.utf8) + [0xff] {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        return String(hash, radix: 16) + "-" + String(body.utf8.count)
    }

    /// The bytes of the journals in a data folder.
    private func journalBytes(_ folder: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(DataFolder.journalPrefix) }.reduce(0) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: folder + "/" + $1)[.size] as? Int) ?? 0)
        }
    }

    /// On every store that can hold a change on its way to being durable, as the IETF
    /// `Idempotency-Key` draft says: while the first request with a key is being made, a retry
    /// is 409 with `Retry-After`, and another request with the key 422; once it is made, the
    /// retry gets its answer.
    @Test(arguments: HeldStore.all) func aRetryWhileTheFirstIsInFlightIs409(on store: HeldStore) async throws {
        try await store.withHeldChange { api, held in
            let first = Task { try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "slow"]) }
            try await held.entered()  // the first is on its way to being durable
            let retry = try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "slow"])
            #expect(retry.status == 409 && retry.field("Retry-After") == "1")
            let other = try await api.json("POST", "/trips", lisbon + " ", headers: ["Idempotency-Key": "slow"])
            #expect(other.status == 422)
            try await held.release()
            #expect(try await first.value.status == 201)
            #expect(try await api.json("POST", "/trips", lisbon, headers: ["Idempotency-Key": "slow"]).field("Location") == "/trips/7")
        }
    }

    /// A refused change keeps no key: its retry is judged afresh (refused again, not 409),
    /// and the key is free for another request.
    @Test(arguments: TestStore.all) func aRefusedChangeKeepsNoKey(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        #expect(try await api.request("DELETE", "/trips/99", headers: ["Idempotency-Key": "refused"]).status == 404)
        #expect(try await api.request("DELETE", "/trips/99", headers: ["Idempotency-Key": "refused"]).status == 404)
        #expect(try await api.request("DELETE", "/trips/3", headers: ["Idempotency-Key": "refused"]).status == 204)
        #expect(api.order == [1, 2, 4, 5, 6])
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
