/// When and how long a client waits before trying a request again: after a lost connection,
/// a 503, or a 409 (the same change still being made), backing off exponentially. A change
/// is tried again with the same `Idempotency-Key`, so the server makes it at most once.
///
/// The waiting itself is `sleep`, injected: tests pass one that returns at once.
public struct RetryPolicy: Sendable {
    /// How many times a request is sent at most, the first time included.
    public var maxAttempts: Int
    /// The wait before the second try; each later wait doubles it, up to `maxDelay`.
    public var initialDelay: Duration
    /// The longest wait, whatever the server's `Retry-After` asks.
    public var maxDelay: Duration
    /// Waits `duration` (throws when the task is cancelled).
    public var sleep: @Sendable (Duration) async throws -> Void

    /// Four tries, waiting 0.25 s, 0.5 s, 1 s (or the server's `Retry-After`, up to 10 s).
    public init(
        maxAttempts: Int = 4, initialDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(10),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.sleep = sleep
    }

    public static let `default` = RetryPolicy()

    /// The wait after failed try number `attempt` (from 1): the backoff, or the server's
    /// `Retry-After` when that is longer, never more than `maxDelay`.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration {
        let doublings = min(max(attempt - 1, 0), 30)
        var backoff = initialDelay * (1 << doublings)
        if let retryAfter, retryAfter > backoff { backoff = retryAfter }
        return min(backoff, maxDelay)
    }
}
