import Foundation
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsServer
@testable import TripsStore

private let alice = "alice-0123456789abcdef"
private let bob = "bob-fedcba9876543210"
private let tokens = AccessTokens([(name: "alice", token: alice), (name: "bob", token: bob)])
private let oslo = #"{"city":"Oslo","country":"Norway","nights":2,"price":640.5,"start":"2027-08-14"}"#
private let form = ["Content-Type": "application/x-www-form-urlencoded"]

/// Rate limits (`--rate-limit`, `--rate-limit-reads`, `--trusted-proxy`) and the sign-in
/// limit, over live sockets, with a manual clock: buckets refill only when the test says.
@Suite struct APIRateLimitTests {
    /// A live server limiting changes to `perSecond` with `burst` on `clock`.
    private func start(
        perSecond: Int = 1, burst: Int = 2, reads: Bool = false, proxies: [String] = [], access: AccessPolicy? = nil,
        clock: ManualClock
    ) async throws -> APIServer {
        let options = RateLimitOptions(
            perSecond: perSecond, burst: burst, limitsReads: reads, trustedProxies: proxies.compactMap { IPAddress($0) })
        return try await APIServer(mode: .live, clock: clock, access: access, rateLimit: options)
    }

    private func add(_ api: APIServer, headers: [String: String] = [:]) async throws -> TestResponse {
        try await api.json("POST", "/trips", oslo, headers: headers)
    }

    @Test func aBurstIsAnsweredThenA429WithRetryAfterAndTheProblemAndNothingChanges() async throws {
        let clock = ManualClock()
        let api = try await start(clock: clock)
        defer { api.stop() }
        let first = try await add(api)
        #expect(first.status == 201)
        #expect(first.field("RateLimit-Policy") == #""changes";q=2;w=2"#)
        #expect(first.field("RateLimit") == #""changes";r=1;t=1"#)
        let second = try await add(api)
        #expect(second.field("RateLimit") == #""changes";r=0;t=2"#)
        let refused = try await add(api)
        #expect(refused.status == 429)
        #expect(refused.field("Retry-After") == "1")
        #expect(refused.field("RateLimit") == #""changes";r=0;t=2"#)
        #expect(refused.field("RateLimit-Policy") == #""changes";q=2;w=2"#)
        #expect(refused.field("Content-Type") == "application/problem+json")
        #expect(try refused.member("type") == .string("/problems/rate-limited"))
        #expect(api.order.count == 8)
        // Reads are not limited without --rate-limit-reads, and carry no fields.
        for _ in 0..<5 {
            let read = try await api.request("GET", "/trips/2")
            #expect(read.status == 200)
            #expect(read.field("RateLimit") == nil)
        }
        // A second later one request's worth came back, and no more.
        clock.advance(by: .seconds(1))
        #expect(try await add(api).status == 201)
        #expect(try await add(api).status == 429)
        clock.advance(by: .seconds(2))
        let full = try await add(api)
        #expect(full.field("RateLimit") == #""changes";r=1;t=1"#)
        #expect(api.order.count == 10)
    }

    @Test func eachTokenHasABucketOfItsOwn() async throws {
        let clock = ManualClock()
        let api = try await start(burst: 1, access: AccessPolicy(tokens: tokens, isPrivate: false), clock: clock)
        defer { api.stop() }
        #expect(try await add(api, headers: ["Authorization": "Bearer \(alice)"]).status == 201)
        #expect(try await add(api, headers: ["Authorization": "Bearer \(alice)"]).status == 429)
        #expect(try await add(api, headers: ["Authorization": "Bearer \(bob)"]).status == 201)
        // A token that is none of ours is refused for that (401), not counted.
        #expect(try await add(api, headers: ["Authorization": "Bearer nobody-0123456789"]).status == 401)
    }

    @Test func withoutTokensEachAddressHasABucketAndOnlyATrustedProxyNamesIt() async throws {
        let clock = ManualClock()
        // Not trusted: X-Real-IP is the client's own claim, and every request is 127.0.0.1's.
        let open = try await start(burst: 1, clock: clock)
        defer { open.stop() }
        #expect(try await add(open, headers: ["X-Real-IP": "192.0.2.1"]).status == 201)
        #expect(try await add(open, headers: ["X-Real-IP": "192.0.2.2"]).status == 429)
        #expect(try await add(open, headers: ["X-Forwarded-For": "192.0.2.3"]).status == 429)

        let proxied = try await start(burst: 1, proxies: ["127.0.0.1"], clock: clock)
        defer { proxied.stop() }
        #expect(try await add(proxied, headers: ["X-Real-IP": "192.0.2.1"]).status == 201)
        #expect(try await add(proxied, headers: ["X-Real-IP": "192.0.2.1"]).status == 429)
        #expect(try await add(proxied, headers: ["X-Real-IP": "192.0.2.2"]).status == 201)
        // Without X-Real-IP (or with a malformed one) the client is the proxy itself.
        #expect(try await add(proxied).status == 201)
        #expect(try await add(proxied, headers: ["X-Real-IP": "not-an-address"]).status == 429)
    }

    @Test func readsAreLimitedOnlyWithRateLimitReadsInBucketsOfTheirOwn() async throws {
        let clock = ManualClock()
        let api = try await start(burst: 1, reads: true, clock: clock)
        defer { api.stop() }
        let read = try await api.request("GET", "/trips/2")
        #expect(read.status == 200)
        #expect(read.field("RateLimit-Policy") == #""reads";q=1;w=1"#)
        let refused = try await api.request("GET", "/trips")
        #expect(refused.status == 429)
        #expect(refused.field("Retry-After") == "1")
        // Changes have their own bucket; the probes and OPTIONS are never limited.
        #expect(try await add(api).status == 201)
        #expect(try await api.request("GET", "/livez").status == 200)
        #expect(try await api.request("OPTIONS", "/trips").status == 204)
    }

    @Test func refusalsAreCountedInMetrics() async throws {
        let clock = ManualClock()
        let api = try await start(burst: 1, clock: clock)
        defer { api.stop() }
        #expect(try await add(api).status == 201)
        #expect(try await add(api).status == 429)
        #expect(try await add(api).status == 429)
        let metrics = try await api.request("GET", "/metrics")
        #expect(metrics.text.contains("# TYPE trips_rate_limited_total counter\n"))
        #expect(metrics.text.contains(#"trips_rate_limited_total{limit="changes"} 2"#))
    }

    /// A change that asks for `Expect: 100-continue` while its bucket is empty is refused
    /// before its content: 429, never `100 Continue`, and the connection closes. With room,
    /// it gets `100 Continue`, and takes its turn once its content arrives.
    @Test func expectContinueIsRefusedBeforeTheContentWhenTheBucketIsEmpty() async throws {
        let clock = ManualClock()
        let api = try await start(burst: 1, clock: clock)
        defer { api.stop() }
        let port = api.port
        let head =
            "POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
            + "Content-Length: \(oslo.utf8.count)\r\n\r\n"
        let (interim, created) = try await onOwnThread {
            let client = try TestClient(port: port)
            try client.send(head)
            let interim = try client.readResponse().status
            try client.send(oslo)
            return (interim, try client.readResponse().status)
        }
        #expect(interim == 100 && created == 201)
        let written = try await onOwnThread {
            let client = try TestClient(port: port)
            try client.send(head)
            return try client.readToEnd()
        }
        #expect(written.hasPrefix("HTTP/1.1 429 Too Many Requests\r\n"))
        #expect(!written.contains("100 Continue"))
        #expect(written.contains("Retry-After: 1\r\n") && written.contains("Connection: close\r\n"))
        #expect(api.order.count == 7)
    }

    /// Failed sign-ins are limited per client address, whatever the token (10, then one
    /// every 6 seconds); a sign-in that works gives its turn back.
    @Test func failedSignInsAreLimitedPerAddress() async throws {
        let clock = ManualClock()
        let api = try await APIServer(mode: .live, clock: clock, access: AccessPolicy(tokens: tokens, isPrivate: false, clock: clock))
        defer { api.stop() }
        for _ in 0..<12 {
            #expect(try await api.request("POST", "/session", headers: form, body: "token=\(alice)").status == 204)
        }
        for attempt in 0..<10 {
            let wrong = try await api.request("POST", "/session", headers: form, body: "token=guess-\(attempt)-0123456789")
            #expect(wrong.status == 401)
            #expect(wrong.field("RateLimit-Policy") == #""sign-in";q=10;w=60"#)
        }
        for token in ["guess-x-0123456789", alice] {
            let refused = try await api.request("POST", "/session", headers: form, body: "token=\(token)")
            #expect(refused.status == 429)
            #expect(refused.field("Retry-After") == "6")
            #expect(try refused.member("type") == .string("/problems/rate-limited"))
        }
        // The limit is on sign-ins only: a bearer token still works.
        #expect(try await add(api, headers: ["Authorization": "Bearer \(alice)"]).status == 201)
        clock.advance(by: .seconds(6))
        #expect(try await api.request("POST", "/session", headers: form, body: "token=\(alice)").status == 204)
        #expect(try await api.request("POST", "/session", headers: form, body: "token=\(alice)").status == 204)
        #expect(try await api.request("POST", "/session", headers: form, body: "token=guess-y-0123456789").status == 401)
        #expect(try await api.request("POST", "/session", headers: form, body: "token=guess-z-0123456789").status == 429)
        let metrics = try await api.request("GET", "/metrics")
        #expect(metrics.text.contains(#"trips_rate_limited_total{limit="sign-in"} 3"#))
    }

    @Test func aTokensBrowserSessionsAreCappedOldestFirst() async throws {
        let clock = ManualClock()
        let sessions = try BrowserSessions(capacity: 100, capacityPerToken: 3, clock: clock)
        let alices = try (0..<4).map { _ in try sessions.begin(for: "alice") }
        let bobs = try sessions.begin(for: "bob")
        #expect(sessions.name(for: alices[0][...]) == nil)
        #expect(alices.dropFirst().allSatisfy { sessions.name(for: $0[...]) == "alice" })
        #expect(sessions.name(for: bobs[...]) == "bob")
        // A session that ended makes room: no other is pushed out for it.
        sessions.end(alices[1][...])
        let fifth = try sessions.begin(for: "alice")
        #expect([alices[2], alices[3], fifth].allSatisfy { sessions.name(for: $0[...]) == "alice" })
        #expect(sessions.count == 4)
    }
}
