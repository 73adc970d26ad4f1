import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// U+0000 in a string: PostgreSQL's text cannot hold it, so every way a string reaches a
/// trip refuses it with 422 naming the member, on every store alike, and nothing changes.
@Suite struct APIStringTests {
    /// A request that carries U+0000 in one member, and the member the problem names.
    struct Case: Sendable, CustomTestStringConvertible {
        let method: String
        let target: String
        let contentType: String
        let body: String
        let member: String
        var testDescription: String { "\(method) \(target) \(member)" }
    }

    static let cases: [Case] = [
        Case(
            method: "POST", target: "/trips", contentType: "application/json",
            body: #"{"city":"Lisbon","country":"Portugal","nights":4,"price":1,"start":"2027-05-01","notes":"a\u0000b"}"#,
            member: "notes"),
        Case(
            method: "POST", target: "/trips", contentType: "application/json",
            body: #"{"city":"Lis\u0000bon","country":"Portugal","nights":4,"price":1,"start":"2027-05-01"}"#, member: "city"),
        Case(
            method: "POST", target: "/trips", contentType: "application/json",
            body: #"[{"city":"Lisbon","country":"Portu\u0000gal","nights":4,"price":1,"start":"2027-05-01"}]"#,
            member: "[0].country"),
        Case(
            method: "POST", target: "/trips", contentType: "application/json",
            body: #"{"city":"Lisbon","country":"Portugal","nights":4,"price":1,"start":"2027-05-01","imageName":"\u0000"}"#,
            member: "imageName"),
        Case(
            method: "PATCH", target: "/trips/2", contentType: "application/merge-patch+json", body: #"{"notes":"\u0000"}"#, member: "notes"),
        Case(
            method: "PUT", target: "/trips/2", contentType: "application/json",
            body: #"{"city":"Vancouver","country":"Canada","nights":3,"price":1,"start":"2027-03-05","notes":"x\u0000"}"#,
            member: "notes"),
        Case(
            method: "POST", target: "/trips", contentType: "text/plain", body: "Lis\u{0}bon, Portugal: 4 nights from May 1, 2027",
            member: "city"),
    ]

    @Test(arguments: TestStore.all, cases)
    func aStringWithUPlus0000IsRefusedWith422NamingTheMember(store: TestStore, request: Case) async throws {
        let api = try await APIServer(on: store, mode: .live)
        defer { api.stop() }
        let before = try await api.request("GET", "/trips")
        let refused = try await api.request(
            request.method, request.target, headers: ["Content-Type": request.contentType], body: request.body)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(try refused.member("member") == .string(request.member))
        let after = try await api.request("GET", "/trips")
        #expect(after.body == before.body)
        #expect(try await api.request("GET", "/readyz").status == 200)
    }

    /// The same value that PostgreSQL could not take used to fail the whole transaction: the
    /// store must stay writable, and ready, for the next change.
    @Test(arguments: TestStore.all) func aRefusedStringLeavesTheStoreWritableAndReady(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live)
        defer { api.stop() }
        let refused = try await api.request(
            "PATCH", "/trips/2", headers: ["Content-Type": "application/merge-patch+json"], body: #"{"notes":"a\u0000b"}"#)
        #expect(refused.status == 422)
        let accepted = try await api.request(
            "PATCH", "/trips/2", headers: ["Content-Type": "application/merge-patch+json"], body: #"{"notes":"a\nb\tc"}"#)
        #expect(accepted.status == 200)
        #expect(api.store.list[2]?.notes == "a\nb\tc")
        #expect(try await api.request("GET", "/readyz").status == 200)
    }
}
