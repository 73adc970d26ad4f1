import Foundation
import Glibc
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

private let alice = "alice-0123456789abcdef"
private let tokens = AccessTokens([(name: "alice", token: alice), (name: "bob", token: "bob-fedcba9876543210")])

/// Bearer tokens (RFC 6750), CORS, and the probes.
@Suite struct APIAccessTests {
    @Test(arguments: TestStore.all) func withTokensAChangeNeedsOneAndAWrongOneIsInvalid(store: TestStore) async throws {
        let api = try await APIServer(on: store, access: AccessPolicy(tokens: tokens, isPrivate: false))
        defer { api.stop() }
        let none = try await api.request("PUT", "/favorites/2")
        #expect(none.status == 401)
        #expect(none.field("WWW-Authenticate") == #"Bearer realm="trips""#)
        let wrong = try await api.request("PUT", "/favorites/2", headers: ["Authorization": "Bearer nope-nope-nope-nope"])
        #expect(wrong.status == 401)
        #expect(wrong.field("WWW-Authenticate") == #"Bearer realm="trips", error="invalid_token""#)
        let basic = try await api.request("DELETE", "/trips/1", headers: ["Authorization": "Basic YWxpY2U6eA=="])
        #expect(basic.status == 401)
        #expect(api.store.list == SampleTrips.list)  // nothing changed
        let right = try await api.request("PUT", "/favorites/2", headers: ["Authorization": "bearer \(alice)"])
        #expect(right.status == 200)
        #expect(try await api.request("GET", "/trips").status == 200)  // reads need none
        #expect(try await api.request("GET", "/trips", headers: ["Authorization": "Bearer wrong-wrong-wrong-wrong"]).status == 401)
    }

    @Test(arguments: TestStore.all) func privateMakesReadsNeedATokenButNotTheProbes(store: TestStore) async throws {
        let api = try await APIServer(on: store, access: AccessPolicy(tokens: tokens, isPrivate: true))
        defer { api.stop() }
        #expect(try await api.request("GET", "/trips").status == 401)
        #expect(try await api.request("GET", "/trips/2", headers: ["Authorization": "Bearer \(alice)"]).status == 200)
        for probe in ["/livez", "/readyz", "/health"] {
            #expect(try await api.request("GET", probe).status == 200, "\(probe)")
        }
    }

    @Test(arguments: TestStore.all) func theAccessLogNamesTheUserNeverTheToken(store: TestStore) async throws {
        let api = try await APIServer(on: store, access: AccessPolicy(tokens: tokens, isPrivate: false))
        defer { api.stop() }
        let answer = try await api.handleRaw(
            TestRequest(method: "PUT", target: "/favorites/3", headers: ["Authorization": "Bearer \(alice)"]))
        #expect(answer.context.user == "alice")
        let pipe = try LogPipe()
        let log = AccessLog(descriptor: pipe.writeEnd)
        let ids = RequestIDGenerator(loopIndex: 0)
        log.record(
            id: ids.next(), idPrefix: ids.prefix, request: try TestRequest(method: "PUT", target: "/favorites/3").parsed, trace: nil,
            status: 200, bytes: 9, duration: 0, user: answer.context.user)
        log.flush()
        let text = pipe.drain()
        #expect(text.contains(" user=alice "))
        #expect(!text.contains(alice))
    }

    /// A change that asks for `Expect: 100-continue` without a valid token is refused before
    /// its content is sent: 401, never `100 Continue`, and the connection closes.
    @Test func expectContinueComesOnlyAfterTheTokenIsChecked() async throws {
        let api = try await APIServer(mode: .live, access: AccessPolicy(tokens: tokens, isPrivate: false))
        defer { api.stop() }
        let port = api.port
        let head = "POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
        let body = #"{"city":"Oslo","country":"Norway","nights":2,"price":1,"start":"2027-05-01"}"#
        for (authorization, error) in [("", nil), ("Authorization: Bearer wrong-wrong-wrong-wrong\r\n", "invalid_token")] {
            let written = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send(head + authorization + "Content-Length: \(body.utf8.count)\r\n\r\n")
                return try client.readToEnd()
            }
            #expect(written.hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
            #expect(!written.contains("100 Continue"))
            #expect(written.contains("WWW-Authenticate: Bearer realm=\"trips\"" + (error.map { ", error=\"\($0)\"" } ?? "")))
            #expect(written.contains("Connection: close\r\n"))
        }
        let (interim, created) = try await onOwnThread {
            let client = try TestClient(port: port)
            try client.send(head + "Authorization: Bearer \(alice)\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            let interim = try client.readResponse().status
            try client.send(body)
            return (interim, try client.readResponse().status)
        }
        #expect(interim == 100)
        #expect(created == 201)
    }

    @Test func tokensCompareWholeAndReadFromAFile() throws {
        #expect(tokens.name(for: Array(alice.utf8)) == "alice")
        #expect(tokens.name(for: Array(alice.dropLast().utf8)) == nil)
        #expect(tokens.name(for: Array((alice + "x").utf8)) == nil)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trips-tokens-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let good = folder + "/tokens"
        try "# who  token\nalice \(alice)\n\n  bob\tbob-fedcba9876543210  # the bot\n".write(
            toFile: good, atomically: true, encoding: .utf8)
        #expect(try AccessTokens(contentsOf: good).name(for: Array("bob-fedcba9876543210".utf8)) == "bob")
        for (text, message) in [
            ("alice\n", "line 1: expected NAME TOKEN"), ("alice short\n", "line 1"), ("# nothing\n", "lists no token"),
            ("a \(alice)\nb \(alice)\n", "line 2"),
        ] {
            try text.write(toFile: good, atomically: true, encoding: .utf8)
            let error = #expect(throws: AccessTokens.FileError.self) { try AccessTokens(contentsOf: good) }
            #expect(error?.description.contains(message) == true, "\(text)")
        }
        #expect(throws: AccessTokens.FileError.self) { try AccessTokens(contentsOf: folder + "/missing") }
        // A token file others can read or write gets a warning at start.
        for (mode, exposure) in [
            (0o600, nil), (0o400, nil), (0o644, "readable"), (0o640, "readable"), (0o620, "writable"),
            (0o602, "writable"), (0o666, "readable and writable"),
        ] as [(mode_t, String?)] {
            chmod(good, mode)
            #expect(AccessTokens.exposure(of: good) == exposure, "\(String(mode, radix: 8))")
        }
    }

    @Test func onlyLoopbackRunsWithoutTokens() {
        #expect(HostAllowList.isLoopback("127.0.0.1") && HostAllowList.isLoopback("127.1.2.3"))
        #expect(HostAllowList.isLoopback("::1") && HostAllowList.isLoopback("localhost"))
        #expect(!HostAllowList.isLoopback("0.0.0.0") && !HostAllowList.isLoopback("::") && !HostAllowList.isLoopback("10.0.0.1"))
    }
}

@Suite struct APICORSTests {
    private let cors = CORSPolicy(origins: ["https://app.example"])

    @Test(arguments: TestStore.all) func aPreflightFromAnAllowedOriginGetsTheRoutesMethods(store: TestStore) async throws {
        let api = try await APIServer(on: store, cors: cors)
        defer { api.stop() }
        let preflight = try await api.request(
            "OPTIONS", "/trips/2", headers: ["Origin": "https://app.example", "Access-Control-Request-Method": "PATCH"])
        #expect(preflight.status == 204)
        #expect(preflight.field("Access-Control-Allow-Origin") == "https://app.example")
        #expect(preflight.field("Access-Control-Allow-Methods") == "GET, HEAD, PUT, PATCH, DELETE, OPTIONS")
        #expect(preflight.field("Access-Control-Allow-Headers")?.contains("Idempotency-Key") == true)
        #expect(preflight.field("Access-Control-Max-Age") == "600")
    }

    @Test(arguments: TestStore.all) func anActualResponseCarriesTheHeadersAndAnOtherOriginNone(store: TestStore) async throws {
        let api = try await APIServer(on: store, cors: cors)
        defer { api.stop() }
        let allowed = try await api.request("GET", "/trips/2", headers: ["Origin": "https://app.example"])
        #expect(allowed.field("Access-Control-Allow-Origin") == "https://app.example")
        #expect(allowed.field("Vary") == "Accept, Accept-Encoding, Origin")
        #expect(allowed.field("Access-Control-Expose-Headers")?.contains("Trips-Revision") == true)
        let change = try await api.request("PUT", "/favorites/2", headers: ["Origin": "https://app.example"])
        #expect(change.field("Access-Control-Allow-Origin") == "https://app.example")  // deferred answers too
        let other = try await api.request("GET", "/trips/2", headers: ["Origin": "https://evil.example"])
        #expect(other.field("Access-Control-Allow-Origin") == nil)
        let refused = try await api.request(
            "OPTIONS", "/trips", headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "DELETE"])
        #expect(refused.field("Access-Control-Allow-Origin") == nil)
        let withoutCORS = try await APIServer(on: store)
        defer { withoutCORS.stop() }
        #expect(
            try await withoutCORS.request("GET", "/trips", headers: ["Origin": "https://app.example"]).field("Access-Control-Allow-Origin")
                == nil)
    }

    @Test(arguments: TestStore.all) func aStarAllowsAnyOrigin(store: TestStore) async throws {
        let api = try await APIServer(on: store, cors: CORSPolicy(origins: ["*"]))
        defer { api.stop() }
        #expect(
            try await api.request("GET", "/trips", headers: ["Origin": "https://any.example"]).field("Access-Control-Allow-Origin") == "*")
    }
}

@Suite struct APIProbeTests {
    @Test func readinessFlipsWhileWritesFail() async throws {
        try await withStorageFolder { folder in
            let disk = FaultyFileSystem()
            let store = try TripStore.open(folder, samples: true, fileSystem: disk)
            defer { store.close() }
            let api = try await APIServer(store: store)
            #expect(try await api.request("GET", "/readyz").status == 200)
            #expect(try await api.request("GET", "/livez").status == 200)
            disk.failNext(.write, errno: ENOSPC, partial: true)
            #expect(try await api.request("PUT", "/favorites/2").status == 507)
            let notReady = try await api.request("GET", "/readyz")
            #expect(notReady.status == 503)
            #expect(notReady.text.contains("the disk is full"))
            #expect(!notReady.text.contains(folder))
            #expect(try await api.request("GET", "/health").text.contains(#""store":"failing: the disk is full"#))
            #expect(try await api.request("GET", "/livez").status == 200)  // alive all the same
            #expect(try await api.request("PUT", "/favorites/2").status == 200)
            #expect(try await api.request("GET", "/readyz").status == 200)
            #expect(try await api.request("GET", "/health").text.contains(#""store":"ok""#))
        }
    }
}

@Suite struct APIPageTests {
    /// Follows `Link: rel="next"` from `target` to the end; the ids of each page.
    private func pages(_ api: APIServer, _ target: String, headers: [String: String] = [:]) async throws -> [[Int]] {
        var pages: [[Int]] = []
        var next: String? = target
        while let target = next, pages.count < 20 {
            let response = try await api.request("GET", target, headers: headers)
            #expect(response.status == 200)
            pages.append(try response.ids)
            next = response.link("next")
        }
        return pages
    }

    @Test(arguments: TestStore.all) func pagesFollowTheViewsOrderWithEveryFilterAndSort(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        #expect(try await pages(api, "/trips?limit=4") == [[1, 2, 3, 4], [5, 6]])
        #expect(try await pages(api, "/trips?limit=2") == [[1, 2], [3, 4], [5, 6]])
        #expect(try await pages(api, "/trips?sort=-price&limit=2") == [[5, 3], [4, 1], [2, 6]])
        #expect(try await pages(api, "/trips?country=united%20states&limit=1") == [[1], [4]])
        #expect(try await pages(api, "/favorites?limit=1") == [[1], [5]])
        #expect(try await pages(api, "/trips?limit=6") == [[1, 2, 3, 4, 5, 6]])
        let link = try await api.request("GET", "/trips?q=a&limit=1&after=1").field("Link")
        #expect(
            link == #"</trips?q=a&limit=1&after=2>; rel="next", </trips?q=a&limit=1>; rel="first", </openapi.yaml>; rel="service-desc""#)
    }

    @Test(arguments: TestStore.all) func aListChangedBetweenPagesGoesOnFromWhereItWas(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let first = try await api.request("GET", "/trips?limit=3")
        #expect(try first.ids == [1, 2, 3])
        _ = try await api.request("DELETE", "/trips/2")  // before the cursor: the next page is unaffected
        _ = try await api.json("POST", "/trips/reorder", #"{"sources":[6],"destination":{"before":4}}"#)
        let second = try await api.request("GET", "/trips?limit=3&after=3")
        #expect(try second.ids == [6, 4, 5])
        _ = try await api.request("DELETE", "/trips/3")
        let gone = try await api.request("GET", "/trips?limit=3&after=3")
        #expect(gone.status == 422)
        #expect(try gone.member("member") == .string("after"))
    }

    @Test(arguments: TestStore.all) func textPagesTheSameWay(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let page = try await api.request("GET", "/trips?limit=1&after=1", headers: ["Accept": "text/plain"])
        #expect(page.text == "Vancouver, Canada: 3 nights from March 5, 2027\n")
        #expect(
            page.field("Link")
                == #"</trips?limit=1&after=2>; rel="next", </trips?limit=1>; rel="first", </openapi.yaml>; rel="service-desc""#)
    }

    @Test(arguments: [
        "/trips?limit=0", "/trips?limit=1001", "/trips?limit=x", "/trips?after=x", "/trips?limit=1&limit=2", "/favorites?q=a",
    ])
    func badPageParametersAre400(target: String) async throws {
        #expect(try await APIServer().request("GET", target).status == 400)
    }
}
