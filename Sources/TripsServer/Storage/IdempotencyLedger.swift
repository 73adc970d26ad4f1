/// A change's first answer, kept so that a retry with the same `Idempotency-Key` gets it again.
struct StoredAnswer: Sendable, Equatable {
    var status: Int
    /// The fields worth repeating: `Content-Type`, `Location`, `ETag`, `Trips-Revision`.
    var fields: [String: String]
    var body: [UInt8]
}

/// One use of an idempotency key: what the request was (its fingerprint), when, and what it got.
struct IdempotencyKeyUse: Sendable, Equatable {
    var key: String
    var fingerprint: String
    /// Seconds since 1970, when the change was made.
    var at: Int64
    var answer: StoredAnswer
}

/// The idempotency keys of recent changes (the IETF `Idempotency-Key` draft, as Stripe keeps
/// them): every key used in the last 24 hours, and at least the last 100,000, with the first
/// answer each got. Kept in the journal record of the change itself, and in the snapshot, so
/// a client that retries after a crash still gets the original answer, not a second change.
struct IdempotencyLedger: Sendable, Equatable {
    static let minimumKept = 100_000
    static let keptSeconds: Int64 = 24 * 60 * 60

    /// What a key says about a request that carries it.
    enum Lookup: Equatable {
        /// Not seen: make the change.
        case new
        /// Seen with the same request: answer it again, change nothing.
        case replay(StoredAnswer)
        /// Seen with a different request: 422.
        case conflict
        /// The first request with it is still being made: 409.
        case inFlight
    }

    private var uses: [String: IdempotencyKeyUse] = [:]
    /// Keys in the order they were used, oldest first (from `first` on).
    private var order: [String] = []
    private var first = 0
    private var pending: [String: String] = [:]

    init() {}

    func lookup(key: String, fingerprint: String) -> Lookup {
        if let use = uses[key] { return use.fingerprint == fingerprint ? .replay(use.answer) : .conflict }
        if let planned = pending[key] { return planned == fingerprint ? .inFlight : .conflict }
        return .new
    }

    /// The change with this key is planned and not yet durable.
    mutating func begin(key: String, fingerprint: String) {
        pending[key] = fingerprint
    }

    /// The change failed: the key is free again.
    mutating func abandon(key: String) {
        pending[key] = nil
    }

    /// The change is durable (or replayed from the disk): its answer is kept.
    mutating func finish(_ use: IdempotencyKeyUse, now: Int64) {
        pending[use.key] = nil
        if uses.updateValue(use, forKey: use.key) == nil { order.append(use.key) }
        // Forget keys past both limits: older than a day, beyond the last 100,000.
        while order.count - first > Self.minimumKept, let oldest = uses[order[first]], now - oldest.at > Self.keptSeconds {
            uses[order[first]] = nil
            first += 1
        }
        if first > 4_096 && first * 2 > order.count {
            order.removeFirst(first)
            first = 0
        }
    }

    /// Every kept use, oldest first (what a snapshot saves).
    var all: [IdempotencyKeyUse] {
        order[first...].compactMap { uses[$0] }
    }
}
