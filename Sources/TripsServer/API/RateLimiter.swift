import Synchronization
import TripsPlatform

/// Token buckets, one per client, in this process's memory: each holds up to `rate.burst`
/// requests and refills at `rate`'s pace; a request takes one, and a client whose bucket is
/// empty is refused until it refills.
///
/// A bucket is kept as the one instant it will be full again (the generic cell rate
/// algorithm's "theoretical arrival time"), so a request costs one dictionary look-up under
/// a lock and no timer. A full bucket is the same as none, so the table forgets it. It holds
/// at most `capacity` buckets: a client with many addresses cannot grow it without end.
/// Past the capacity it forgets the full ones, then the ones closest to full.
final class RateLimiter: Sendable {
    /// How many requests a bucket holds, and how fast it refills.
    struct Rate: Sendable, Hashable, CustomStringConvertible {
        /// Requests `interval` gives back.
        let requests: Int
        let interval: Duration
        /// Requests a full bucket holds: taken at once, after a pause.
        let burst: Int

        /// `requests` per `interval`, up to `burst` at once; nil unless all are positive.
        init?(_ requests: Int, per interval: Duration, burst: Int) {
            guard requests > 0, interval > .zero, burst > 0 else { return nil }
            self.requests = requests
            self.interval = interval
            self.burst = burst
        }

        /// The time one request's token takes to come back.
        var emissionInterval: UInt64 { max(1, interval.nanoseconds / UInt64(requests)) }

        /// Seconds a whole bucket takes to refill, rounded up: the window of the
        /// `RateLimit-Policy` field, which says `burst` requests per this window.
        var window: Int { Int(Self.wholeSecondsRoundingUp(emissionInterval &* UInt64(burst))) }

        var description: String { "\(requests) per \(interval), burst \(burst)" }

        static func wholeSecondsRoundingUp(_ nanoseconds: UInt64) -> UInt64 {
            nanoseconds / 1_000_000_000 + (nanoseconds % 1_000_000_000 == 0 ? 0 : 1)
        }
    }

    /// What a request's bucket said.
    struct Decision: Sendable, Equatable {
        /// Whether the request may go on (it took a token) or is refused.
        let isAllowed: Bool
        /// Whole requests left in the bucket after this one.
        let remaining: Int
        /// Seconds until the bucket is full again, rounded up; 0 when it is.
        let secondsUntilFull: Int
        /// For a refusal, the seconds until the bucket holds a request again, rounded up and
        /// at least 1 (`Retry-After`); 0 when allowed.
        let retryAfter: Int
    }

    /// 10,000 buckets (a few hundred KB) per limit.
    static var defaultCapacity: Int { 10_000 }

    let rate: Rate
    let capacity: Int
    private let clock: any ServerClock
    private let buckets: Mutex<[RateLimitClient: MonotonicInstant]>
    private let refusals = Atomic<Int>(0)

    init(rate: Rate, capacity: Int = defaultCapacity, clock: any ServerClock) {
        self.rate = rate
        self.capacity = max(1, capacity)
        self.clock = clock
        buckets = Mutex([:])
    }

    /// Takes a request from `key`'s bucket, or refuses it when the bucket is empty.
    func take(_ key: RateLimitClient) -> Decision {
        decide(key, taking: true)
    }

    /// What `take` would answer now, without taking anything: for a request that asks before
    /// sending its content, which takes its turn once the content arrives.
    func peek(_ key: RateLimitClient) -> Decision {
        decide(key, taking: false)
    }

    /// Gives back the request `take` took from `key` (a sign-in that succeeded).
    func giveBack(_ key: RateLimitClient) {
        let now = clock.now()
        let interval = rate.emissionInterval
        buckets.withLock { buckets in
            guard let fullAt = buckets[key] else { return }
            let earlier = MonotonicInstant(nanoseconds: fullAt.nanoseconds &- min(interval, fullAt.nanoseconds))
            buckets[key] = earlier > now ? earlier : nil
        }
    }

    /// Requests refused since the start.
    var refusedCount: Int { refusals.load(ordering: .relaxed) }

    /// Buckets kept (none of them full, unless not looked at since they refilled).
    var count: Int { buckets.withLock { $0.count } }

    private func decide(_ key: RateLimitClient, taking: Bool) -> Decision {
        let now = clock.now()
        let interval = rate.emissionInterval
        let depth = interval &* UInt64(rate.burst)
        let capacity = capacity
        let decision = buckets.withLock { buckets -> Decision in
            let fullAt = max(buckets[key] ?? now, now)
            let after = MonotonicInstant(nanoseconds: fullAt.nanoseconds &+ interval)
            // The bucket holds a request when taking one leaves it no emptier than empty.
            guard after.nanoseconds(since: now) <= depth else {
                let holdsOneAt = after.nanoseconds &- depth
                return Decision(
                    isAllowed: false, remaining: 0, secondsUntilFull: Self.seconds(fullAt.nanoseconds(since: now)),
                    retryAfter: max(1, Self.seconds(holdsOneAt &- now.nanoseconds)))
            }
            let kept = taking ? after : fullAt
            if taking {
                if buckets[key] == nil && buckets.count >= capacity { Self.makeRoom(in: &buckets, at: now, capacity: capacity) }
                buckets[key] = after
            }
            let waiting = kept.nanoseconds(since: now)
            return Decision(
                isAllowed: true, remaining: Int((depth - waiting) / interval), secondsUntilFull: Self.seconds(waiting), retryAfter: 0)
        }
        // A refusal before the content (`peek`) is as much a refusal as one after.
        if !decision.isAllowed { refusals.add(1, ordering: .relaxed) }
        return decision
    }

    /// Forgets the full buckets; when that frees less than an eighth of the table, the ones
    /// closest to full too, down to seven eighths. Sorting only once per eighth of the table
    /// keeps the cost per new client small however many clients there are.
    /// - Complexity: O(*n* log *n*) for *n* buckets, once per *n*/8 new clients at most.
    private static func makeRoom(in buckets: inout [RateLimitClient: MonotonicInstant], at now: MonotonicInstant, capacity: Int) {
        buckets = buckets.filter { $0.value > now }
        let target = capacity - max(1, capacity / 8)
        guard buckets.count > target else { return }
        let kept = buckets.sorted { $0.value > $1.value }.prefix(target)
        buckets = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }

    private static func seconds(_ nanoseconds: UInt64) -> Int {
        Int(Rate.wholeSecondsRoundingUp(nanoseconds))
    }
}
