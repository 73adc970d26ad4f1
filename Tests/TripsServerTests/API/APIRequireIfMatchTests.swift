import Foundation
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

private let json = ["Content-Type": "application/json"]
private let draft = #"{"city": "Lisbon", "country": "Portugal", "nights": 4, "price": 1, "start": "2027-05-01"}"#

/// `--require-if-match`: changes of trips or of the list without `If-Match` get 428 with a
/// problem document; with it they go on as before; reads and signing in are not changes of
/// trips. Off by default. Over a live socket.
@Suite struct APIRequireIfMatchTests {
    /// One change of each route that changes trips or the list, as a client would send it.
    private static let changes: [(method: String, target: String, headers: [String: String], body: String?)] = [
        ("POST", "/trips", json, draft),
        ("PATCH", "/trips", ["Content-Type": "application/json-patch+json"], "[]"),
        ("DELETE", "/trips", [:], nil),
        ("POST", "/trips/reorder", json, #"{"order": [2, 1]}"#),
        ("POST", "/trips/sort", json, #"{"by": "start"}"#),
        ("PUT", "/trips/2", json, draft),
        ("PATCH", "/trips/2", ["Content-Type": "application/merge-patch+json"], #"{"nights": 2}"#),
        ("DELETE", "/trips/2", [:], nil),
        ("PUT", "/trips/2/photo", ["Content-Type": "image/png"], "not a photo"),
        ("DELETE", "/trips/2/photo", [:], nil),
        ("PATCH", "/favorites", json, "[]"),
        ("POST", "/favorites", json, "[]"),
        ("PUT", "/favorites/2", [:], nil),
        ("DELETE", "/favorites/2", [:], nil),
    ]

    @Test func everyChangeOfTripsWithoutIfMatchGets428AndChangesNothing() async throws {
        let api = try await APIServer(mode: .live, requiresIfMatch: true)
        defer { api.stop() }
        for change in Self.changes {
            let answer = try await api.request(change.method, change.target, headers: change.headers, body: change.body)
            #expect(answer.status == 428, "\(change.method) \(change.target): \(answer.text)")
            #expect(answer.field("Content-Type") == "application/problem+json", "\(change.method) \(change.target)")
            #expect(try answer.member("status") == .number("428"))
            #expect(try answer.member("type") == .string("/problems/precondition-required"))
            guard case .string(let detail)? = try answer.member("detail") else { throw TestFailure("no detail: \(answer.text)") }
            #expect(detail.contains("If-Match"))
        }
        #expect(api.store.list.revision == 0)
    }

    @Test func withIfMatchAChangeGoesOnAndReadsAndSigningInNeedNone() async throws {
        let api = try await APIServer(mode: .live, requiresIfMatch: true)
        defer { api.stop() }
        let trip = try await api.request("GET", "/trips/2")
        #expect(trip.status == 200)
        let etag = try #require(trip.field("ETag"))
        let changed = try await api.request(
            "PATCH", "/trips/2", headers: ["Content-Type": "application/merge-patch+json", "If-Match": etag], body: #"{"nights": 2}"#)
        #expect(changed.status == 200, "\(changed.text)")
        let stale = try await api.request(
            "PATCH", "/trips/2", headers: ["Content-Type": "application/merge-patch+json", "If-Match": etag], body: #"{"nights": 3}"#)
        #expect(stale.status == 412)
        let any = try await api.request("PUT", "/favorites/3", headers: ["If-Match": "*"])
        #expect(any.status == 200 || any.status == 204, "\(any.text)")
        let signIn = try await api.request(
            "POST", "/session", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "token=x")
        #expect(signIn.status != 428)
        #expect(try await api.request("GET", "/trips").status == 200)
    }

    /// The 428 is decided from the head: a change that asks for `Expect: 100-continue`
    /// without `If-Match` is refused before its content is sent, never `100 Continue`; with
    /// `If-Match` it is invited to send it.
    @Test func expectContinueComesOnlyWithIfMatch() async throws {
        let api = try await APIServer(mode: .live, requiresIfMatch: true)
        defer { api.stop() }
        let port = api.port
        let body = #"{"nights": 2}"#
        let head =
            "PATCH /trips/2 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/merge-patch+json\r\n"
            + "Expect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n"
        let refused = try await onOwnThread {
            let client = try TestClient(port: port)
            try client.send(head + "\r\n")
            return try client.readToEnd()
        }
        #expect(refused.hasPrefix("HTTP/1.1 428 Precondition Required\r\n"), "\(refused)")
        #expect(!refused.contains("100 Continue"))
        #expect(refused.contains("Connection: close\r\n"))
        let (interim, changed) = try await onOwnThread {
            let client = try TestClient(port: port)
            try client.send(head + "If-Match: *\r\n\r\n")
            let interim = try client.readResponse().status
            try client.send(body)
            return (interim, try client.readResponse().status)
        }
        #expect(interim == 100)
        #expect(changed == 200)
        #expect(api.store.list.revision == 1)
    }

    @Test func offByDefault() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let answer = try await api.request(
            "PATCH", "/trips/2", headers: ["Content-Type": "application/merge-patch+json"], body: #"{"nights": 2}"#)
        #expect(answer.status == 200)
    }

    /// The routes the requirement covers are the changes of trips and of the list: every
    /// unsafe method but signing in and out.
    @Test func theRequirementCoversEveryChangeButSigningInAndOut() {
        let covered = Set(
            TripsAPI.routes.resources.flatMap(\.routes).filter(IfMatchRequirement.applies).map { "\($0.method) \($0.template)" })
        let expected = Set(Self.changes.map { "\($0.method) \(APIRequireIfMatchTests.template($0.target))" })
        #expect(covered == expected)
    }

    private static func template(_ target: String) -> String {
        target.replacingOccurrences(of: "/2", with: "/{id}")
    }
}
