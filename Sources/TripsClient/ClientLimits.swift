/// How much and how long a client takes from a server before it gives up on an answer: a
/// broken or hostile server can neither fill the app's memory nor hold a call forever.
///
/// The waiting is `sleep`, injected (as `RetryPolicy.sleep` is): tests pass one they
/// control, and no test waits for real time to pass.
public struct ClientLimits: Sendable {
    /// The largest answer body read; a larger one is cancelled as soon as it passes (before
    /// any byte is read when `Content-Length` announces it). A list of 100,000 trips is about 30 MB.
    public var maxAnswerBytes: Int
    /// The largest change event (or line) the feed reads; a `sorted` event of 100,000 trips
    /// is about 700 KB.
    public var maxEventBytes: Int
    /// The most bytes of the change feed that arrived and its reader has not taken: a reader
    /// that stops reading holds no more, however fast the server sends (`TripChanges`).
    public var maxBufferedBytes: Int
    /// The most change events decoded and not yet taken by the feed's reader.
    public var maxPendingEvents: Int
    /// How long one try of a request may take, head and body, before it counts as lost (and
    /// is tried again, with the same idempotency key, as `RetryPolicy` says).
    public var requestTimeout: Duration
    /// How long the change feed may stay silent before its connection counts as dead: four
    /// of the server's keep-alive comments (sent every 15 s by default, `--heartbeat`).
    public var feedSilence: Duration
    /// Waits `duration` (throws when the task is cancelled).
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        maxAnswerBytes: Int = 64 << 20, maxEventBytes: Int = 8 << 20, maxBufferedBytes: Int = 4 << 20, maxPendingEvents: Int = 256,
        requestTimeout: Duration = .seconds(60),
        feedSilence: Duration = .seconds(60), sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.maxAnswerBytes = max(1, maxAnswerBytes)
        self.maxEventBytes = max(1, maxEventBytes)
        self.maxBufferedBytes = max(1, maxBufferedBytes)
        self.maxPendingEvents = max(1, maxPendingEvents)
        self.requestTimeout = requestTimeout
        self.feedSilence = feedSilence
        self.sleep = sleep
    }

    public static let `default` = ClientLimits()

    /// `body`'s result, or `TripsClientError.timedOut` once `requestTimeout` passes first
    /// (`body` is then cancelled).
    func withinRequestTimeout<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = requestTimeout
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { [sleep] in
                try await sleep(timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw TripsClientError.timedOut(after: timeout) }
            return value
        }
    }
}

extension Duration {
    /// The duration in seconds, as Foundation's intervals count.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
