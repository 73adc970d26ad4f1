import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// `Trips-Revision: N` on a read: the client saw revision N (its last write's answer, maybe
/// from another instance), so this server answers once it has reached N, or 503 after 2 s.
@Suite struct APIReadYourWritesTests {
    @Test(arguments: TestStore.all) func aReadOfARevisionTheServerHasIsAnsweredAtOnce(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request("GET", "/trips/1", headers: ["Trips-Revision": "0"])
        #expect(response.status == 200)
    }

    @Test(arguments: TestStore.all) func aReadAheadOfTheServerWaitsForThatRevision(store: TestStore) async throws {
        let clock = ManualClock()
        let api = try await APIServer(on: store, clock: clock)
        defer { api.stop() }
        let waiting = Task { try await api.request("GET", "/trips/7", headers: ["Trips-Revision": "1"]) }
        while clock.pendingCount == 0 { await Task.yield() }  // registered: its timeout is scheduled
        let created = try await api.json(
            "POST", "/trips", #"{"city": "Lisbon", "country": "Portugal", "nights": 4, "price": 1, "start": "2027-05-01"}"#)
        #expect(created.field("Trips-Revision") == "1")
        let answer = try await waiting.value
        #expect(answer.status == 200)
        #expect(try answer.member("city") == .string("Lisbon"))
    }

    @Test(arguments: TestStore.all) func aServerThatDoesNotCatchUpIn2SecondsSays503(store: TestStore) async throws {
        let clock = ManualClock()
        let api = try await APIServer(on: store, clock: clock)
        defer { api.stop() }
        let waiting = Task { try await api.request("GET", "/trips", headers: ["Trips-Revision": "5"]) }
        while clock.pendingCount == 0 { await Task.yield() }
        clock.advance(by: .milliseconds(1_999))
        clock.advance(by: .milliseconds(1))
        let answer = try await waiting.value
        #expect(answer.status == 503)
        #expect(answer.field("Retry-After") == "1")
    }

    @Test(arguments: ["/livez", "/readyz", "/health", "/metrics", "/openapi.yaml", "/assets/trips.css", "/"])
    func probesAndFilesThatDoNotShowTheListNeverWait(target: String) async throws {
        let response = try await APIServer().request("GET", target, headers: ["Trips-Revision": "99"])
        #expect(response.status != 503)
        #expect(response.status < 400)
    }

    @Test(arguments: ["x", "-1", "1, 2", ""])
    func aMalformedRevisionIs400(value: String) async throws {
        let response = try await APIServer().request("GET", "/trips", headers: ["Trips-Revision": value])
        #expect(response.status == 400)
    }

    @Test(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
    func aWriteThroughOneInstanceIsReadThroughTheOther() async throws {
        let database = try await onOwnThread { try LiveDatabase.createDatabase(named: "trips_ryw") }
        defer { database.drop() }
        // The second instance looks for changes only when notified: its poll is far off.
        let (first, second) = try await onOwnThread {
            (
                try PostgresTripStore(connection: database.configuration),
                try PostgresTripStore(connection: database.configuration, pollInterval: .seconds(60))
            )
        }
        defer {
            first.close()
            second.close()
        }
        let (through, other) = (try await APIServer(store: first), try await APIServer(store: second))
        let created = try await through.json(
            "POST", "/trips", #"{"city": "Lisbon", "country": "Portugal", "nights": 4, "price": 1, "start": "2027-05-01"}"#)
        let revision = try #require(created.field("Trips-Revision"))
        let read = try await other.request("GET", "/trips/7", headers: ["Trips-Revision": revision])
        #expect(read.status == 200)
        #expect(try read.member("city") == .string("Lisbon"))
        #expect(read.field("ETag") == created.field("ETag"))
    }
}
