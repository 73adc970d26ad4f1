import Foundation
import Testing
import TripsDomain
@testable import TripsServer
@testable import TripsStore

/// The in-memory mode answers exactly as the live server does, so the bulk of the API's
/// rules can be tested without sockets.
@Suite struct APIModeTests {
    private static let requests: [TestRequest] = [
        TestRequest(method: "GET", target: "/trips"),
        TestRequest(method: "GET", target: "/trips/2", headers: ["Accept": "text/plain"]),
        TestRequest(method: "HEAD", target: "/favorites"),
        TestRequest(method: "GET", target: "/trips/42", headers: ["Accept": "text/plain"]),
        TestRequest(method: "DELETE", target: "/trips/reorder"),
        TestRequest(method: "GET", target: "/trips/2", headers: ["Accept": "image/png"]),
        TestRequest(method: "OPTIONS", target: "/trips"),
        TestRequest(method: "POST", target: "/trips", headers: ["Content-Type": "text/csv"], body: "a,b"),
        TestRequest(
            method: "POST", target: "/trips", headers: ["Content-Type": "text/plain"], body: "Oslo, Norway: 2 nights from June 1, 2027"),
        TestRequest(method: "POST", target: "/favorites", headers: ["Content-Type": "application/json"], body: "[3]"),
        TestRequest(
            method: "PATCH", target: "/trips", headers: ["Content-Type": "application/json"], body: #"{"sources":[1],"destination":"end"}"#),
    ]

    @Test(arguments: TestStore.all) func bothModesAnswerEveryRequestAlike(store: TestStore) async throws {
        let router = try await APIServer(on: store, mode: .router)
        defer { router.stop() }
        let live = try await APIServer(on: store, mode: .live)
        defer { live.stop() }
        for request in Self.requests {
            // The same id both ways: a problem document names it as its instance.
            let headers = request.headers.merging(["X-Request-ID": "mode-1"]) { $1 }
            let inMemory = try await router.request(request.method, request.target, headers: headers, body: request.body)
            let overSocket = try await live.request(request.method, request.target, headers: headers, body: request.body)
            #expect(inMemory.status == overSocket.status, "\(request.method) \(request.target)")
            #expect(inMemory.body == overSocket.body, "\(request.method) \(request.target)")
            for name in ["Content-Type", "Content-Length", "ETag", "Vary", "Allow", "Accept-Post", "Location"] {
                #expect(inMemory.field(name) == overSocket.field(name), "\(name) of \(request.method) \(request.target)")
            }
        }
        #expect(router.store.list == live.store.list)
    }
}
