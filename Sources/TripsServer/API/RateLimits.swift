import TripsHTTP
import TripsPlatform

/// The rate limits a server applies, each a named policy with buckets of its own: changes
/// (`--rate-limit`), reads (`--rate-limit-reads`, at the same rate), and sign-ins with a
/// token (`POST /session`, always when there are tokens).
///
/// Answers within a policy carry its fields, as draft-ietf-httpapi-ratelimit-headers (-09)
/// writes them: `RateLimit-Policy: "changes";q=20;w=2` (a full bucket of 20 requests, refilled
/// in 2 seconds) and `RateLimit: "changes";r=19;t=1` (19 left now, full again in 1 second).
/// A refused request gets 429 with `Retry-After`, and nothing it asked is done.
struct RateLimits: Sendable {
    /// One limit: its name in the fields, its buckets, and whose bucket a request takes from.
    struct Policy: Sendable {
        let name: String
        let limiter: RateLimiter
        /// Buckets are the client address's even with a token: sign-ins, which guess tokens.
        let isPerAddress: Bool
        /// An answer below 400 gives its request back: only failed sign-ins count.
        let countsFailuresOnly: Bool
        /// `"changes";q=20;w=2`: the same on every answer.
        let policyField: String

        init(name: String, limiter: RateLimiter, isPerAddress: Bool = false, countsFailuresOnly: Bool = false) {
            self.name = name
            self.limiter = limiter
            self.isPerAddress = isPerAddress
            self.countsFailuresOnly = countsFailuresOnly
            policyField = "\"\(name)\";q=\(limiter.rate.burst);w=\(limiter.rate.window)"
        }

        /// `RateLimit-Policy`, and `RateLimit` as `decision` left the bucket.
        func fields(_ decision: RateLimiter.Decision) -> HTTPFields {
            [.rateLimitPolicy: policyField, .rateLimit: "\"\(name)\";r=\(decision.remaining);t=\(decision.secondsUntilFull)"]
        }

        /// 429 with `Retry-After` and the policy's fields.
        func refusal(_ decision: RateLimiter.Decision) -> APIError {
            var error = APIError(
                .tooManyRequests,
                "Too many requests of this kind (\(name)) from this client: wait \(decision.retryAfter) s, as Retry-After says, then send it again."
            )
            error.headerFields = fields(decision)
            error.headerFields[.retryAfter] = String(decision.retryAfter)
            return error
        }
    }

    /// Ten failed sign-ins at once, then one every 6 seconds (10 a minute), per client address:
    /// a person who mistyped a token waits a little; a script guessing tokens gets nowhere.
    static let signInRate = RateLimiter.Rate(10, per: .seconds(60), burst: 10)!

    let changes: Policy?
    let reads: Policy?
    let signIns: Policy?
    let trustedProxies: TrustedProxies

    /// `rate` for changes (nil: none), and for reads too when `limitsReads`; `signIns` when the
    /// server has tokens to guess.
    init(
        rate: RateLimiter.Rate?, limitsReads: Bool = false, signIns: Bool, trustedProxies: TrustedProxies = TrustedProxies(),
        capacity: Int = RateLimiter.defaultCapacity, clock: any ServerClock
    ) {
        changes = rate.map { Policy(name: "changes", limiter: RateLimiter(rate: $0, capacity: capacity, clock: clock)) }
        reads = limitsReads ? rate.map { Policy(name: "reads", limiter: RateLimiter(rate: $0, capacity: capacity, clock: clock)) } : nil
        self.signIns =
            signIns
            ? Policy(
                name: "sign-in", limiter: RateLimiter(rate: Self.signInRate, capacity: capacity, clock: clock), isPerAddress: true,
                countsFailuresOnly: true)
            : nil
        self.trustedProxies = trustedProxies
    }

    /// Whether any limit applies at all: without one, a request costs no look-up.
    var isEmpty: Bool { changes == nil && reads == nil && signIns == nil }

    /// The policy a request to `route` falls under, if any: sign-ins for `POST /session`,
    /// changes for every other change, reads for `GET` and `HEAD`. The probes, the page's
    /// assets, signing out and the problem descriptions are never limited, nor is `OPTIONS`.
    func policy(for method: HTTPMethod, route: Route?) -> Policy? {
        let traits = route?.traits ?? []
        if traits.contains(.signsIn) { return signIns }
        if traits.contains(.needsNoCredentials) { return nil }
        if !method.onlyReads { return changes }
        return method == .options ? nil : reads
    }

    /// Whose bucket `policy` takes from for a request made as `user` from `peer`.
    func client(_ request: HTTPRequest, user: String?, peer: IPAddress?, under policy: Policy) -> RateLimitClient {
        let address = trustedProxies.client(of: request, peer: peer)
        return RateLimitClient(user: policy.isPerAddress ? nil : user, address: address)
    }

    /// Refusals so far, by policy name, for `/metrics`.
    var refusals: [(name: String, count: Int)] {
        [changes, reads, signIns].compactMap { $0 }.map { ($0.name, $0.limiter.refusedCount) }
    }
}

/// What `--rate-limit`, `--rate-limit-burst`, `--rate-limit-reads` and `--trusted-proxy` ask
/// for: off by default.
struct RateLimitOptions: Sendable, Equatable {
    /// Changes a client may make per second, on average (`--rate-limit N/s`); nil: no limit.
    var perSecond: Int?
    /// Requests a client may make at once after a pause; nil: twice `perSecond`.
    var burst: Int?
    /// Reads are limited too, at the same rate, in buckets of their own.
    var limitsReads = false
    /// Proxies whose `X-Real-IP` names the client.
    var trustedProxies: [IPAddress] = []
    /// Buckets kept per limit.
    var capacity = RateLimiter.defaultCapacity

    /// The rate of changes (and reads), when there is one.
    var rate: RateLimiter.Rate? {
        perSecond.flatMap { RateLimiter.Rate($0, per: .seconds(1), burst: burst ?? 2 * $0) }
    }

    /// `N/s`: a whole number of requests per second, from 1 to 1,000,000; nil otherwise.
    static func perSecond(_ text: String) -> Int? {
        guard text.hasSuffix("/s"), let number = Int(text.dropLast(2)), (1...1_000_000).contains(number) else { return nil }
        return number
    }
}
