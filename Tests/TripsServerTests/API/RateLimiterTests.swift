import Testing

@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsServer

/// The token buckets on their own, on a manual clock; client addresses and trusted proxies.
@Suite struct RateLimiterTests {
    private func address(_ text: String) throws -> RateLimitClient {
        .address(try #require(IPAddress(text)).network)
    }

    @Test func aBucketHoldsItsBurstAndRefillsAtItsRate() throws {
        let clock = ManualClock()
        let limiter = RateLimiter(rate: try #require(RateLimiter.Rate(2, per: .seconds(1), burst: 4)), clock: clock)
        let client = RateLimitClient.token("alice")
        #expect((0..<4).map { _ in limiter.take(client).remaining } == [3, 2, 1, 0])
        let refused = limiter.take(client)
        #expect(!refused.isAllowed && refused.retryAfter == 1 && refused.secondsUntilFull == 2)
        #expect(limiter.peek(client) == refused)
        clock.advance(by: .milliseconds(500))
        #expect(limiter.take(client).isAllowed)
        #expect(!limiter.take(client).isAllowed)
        // A refusal `peek` answers counts too: it refuses a request before its content.
        #expect(limiter.refusedCount == 3)
        // Another client's bucket is untouched.
        #expect(limiter.take(.token("bob")).remaining == 3)
        clock.advance(by: .seconds(10))
        #expect(limiter.take(client).remaining == 3)
        // Giving back the one request taken leaves a full bucket, which is no bucket.
        limiter.giveBack(.token("bob"))
        limiter.giveBack(client)
        #expect(limiter.count == 0)
    }

    @Test func aSlowRateWaitsWholeSecondsRoundedUp() throws {
        let clock = ManualClock()
        let limiter = RateLimiter(rate: try #require(RateLimiter.Rate(10, per: .seconds(60), burst: 10)), clock: clock)
        #expect(limiter.rate.window == 60)
        for _ in 0..<10 { _ = limiter.take(.token("x")) }
        #expect(limiter.take(.token("x")).retryAfter == 6)
        clock.advance(by: .seconds(5))
        #expect(limiter.take(.token("x")).retryAfter == 1)
        #expect(try #require(RateLimiter.Rate(3, per: .seconds(1), burst: 5)).window == 2)
        #expect(RateLimiter.Rate(0, per: .seconds(1), burst: 5) == nil)
        #expect(RateLimiter.Rate(1, per: .seconds(1), burst: 0) == nil)
    }

    /// Many addresses cannot grow the table past its capacity: full buckets go first, then
    /// those closest to full, and a client that spent its bucket stays refused.
    @Test func theTableKeepsAtMostItsCapacityAndForgetsTheFullestFirst() throws {
        let clock = ManualClock()
        let limiter = RateLimiter(rate: try #require(RateLimiter.Rate(1, per: .seconds(1), burst: 2)), capacity: 100, clock: clock)
        let greedy = try address("192.0.2.1")
        _ = limiter.take(greedy)
        _ = limiter.take(greedy)
        #expect(!limiter.take(greedy).isAllowed)
        for index in 0..<5_000 {
            let client = try address("2001:db8:\(String(index, radix: 16))::1")
            #expect(limiter.take(client).isAllowed)
            #expect(limiter.count <= 100)
        }
        #expect(!limiter.take(greedy).isAllowed)
        clock.advance(by: .seconds(5))
        _ = limiter.take(try address("198.51.100.7"))
        #expect(limiter.count <= 100)
        // Every other bucket filled up meanwhile: the next new client finds them forgotten.
        for index in 0..<100 { _ = limiter.take(try address("10.0.\(index / 250).\(index % 250)")) }
        _ = limiter.take(try address("10.1.0.0"))
        #expect(limiter.count <= 100 && limiter.take(greedy).isAllowed)
    }

    @Test func anIPv6ClientIsItsSlash64AndIPv4ItsAddress() throws {
        #expect(try address("2001:db8:1:2::1") == address("2001:db8:1:2:ffff::9"))
        #expect(try address("2001:db8:1:2::1") != address("2001:db8:1:3::1"))
        #expect(try address("192.0.2.1") != address("192.0.2.2"))
        #expect(try address("::ffff:192.0.2.1") == address("192.0.2.1"))
        #expect(RateLimitClient(user: "alice", address: .unspecified) == .token("alice"))
    }

    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("::ffff:192.0.2.1", "192.0.2.1"), ("2001:DB8::1", "2001:db8::1"), ("::1", "::1"),
        ("::", "::"),
    ])
    func addressesParseAndPrintAsInetDoes(text: String, printed: String) throws {
        #expect(try #require(IPAddress(text)).description == printed)
    }

    @Test(arguments: ["", "example.com", "192.0.2.1:80", "[::1]", "192.0.2", "192.0.2.256", " 192.0.2.1", "::1%eth0"])
    func anythingButANumericAddressIsNone(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func onlyATrustedProxyNamesTheClient() throws {
        let proxy = try #require(IPAddress("172.28.0.10"))
        let client = try #require(IPAddress("203.0.113.9"))
        let proxies = TrustedProxies([proxy])
        func request(_ headers: [String: String]) throws -> HTTPRequest {
            try TestRequest(method: "POST", target: "/trips", headers: headers).parsed
        }
        #expect(try proxies.client(of: request(["X-Real-IP": "203.0.113.9"]), peer: proxy) == client)
        #expect(try proxies.client(of: request(["X-Real-IP": "203.0.113.9"]), peer: client) == client)
        let other = try #require(IPAddress("198.51.100.1"))
        #expect(try proxies.client(of: request(["X-Real-IP": "203.0.113.9"]), peer: other) == other)
        #expect(try proxies.client(of: request(["X-Forwarded-For": "203.0.113.9"]), peer: proxy) == proxy)
        #expect(try proxies.client(of: request(["X-Real-IP": "203.0.113.9, 10.0.0.1"]), peer: proxy) == proxy)
        #expect(try proxies.client(of: request([:]), peer: nil) == .unspecified)
    }
}
