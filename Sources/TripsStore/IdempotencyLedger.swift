import TripsDomain

/// The idempotency keys of recent changes (the IETF `Idempotency-Key` draft, as Stripe keeps
/// them): every key used in the last 24 hours, and at least the last 100,000, within a byte
/// cap (oldest forgotten first), with the first answer each got. Kept in the journal record
/// of the change itself, and in the snapshot, so a client that retries after a crash still
/// gets the original answer, not a second change.
package struct IdempotencyLedger: Sendable, Equatable {
    package static let minimumKept = 100_000
    package static let keptSeconds: Int64 = 24 * 60 * 60
    /// The default byte cap: 64 MiB (`--idempotency-bytes`).
    package static let defaultByteLimit = 64 << 20

    /// A key as the ledger tells keys apart: within the scope of one token's name.
    package struct Key: Sendable, Hashable {
        package var scope: String
        package var key: String

        package init(scope: String, key: String) {
            self.scope = scope
            self.key = key
        }
    }

    /// What a key says about a request that carries it.
    package enum Lookup: Equatable {
        /// Not seen: make the change.
        case new
        /// Seen with the same request: answer it again, change nothing.
        case replay(StoredAnswer)
        /// Seen with a different request: 422.
        case conflict
        /// The first request with it is still being made: 409.
        case inFlight
    }

    /// Past this many bytes of kept uses, the oldest are forgotten, however recent.
    package let byteLimit: Int
    private var uses: [Key: IdempotencyKeyUse] = [:]
    /// Keys in the order they were used, oldest first (from `first` on).
    private var order: [Key] = []
    private var first = 0
    private var pending: [Key: String] = [:]
    /// The bytes of every kept use (`IdempotencyKeyUse.byteCount`).
    private(set) var byteCount = 0

    package init(byteLimit: Int = Self.defaultByteLimit) {
        self.byteLimit = byteLimit
    }

    package func lookup(_ key: Key, fingerprint: String) -> Lookup {
        if let use = uses[key] { return use.fingerprint == fingerprint ? .replay(use.answer) : .conflict }
        if let planned = pending[key] { return planned == fingerprint ? .inFlight : .conflict }
        return .new
    }

    /// The change with this key is planned and not yet durable.
    package mutating func begin(_ key: Key, fingerprint: String) {
        pending[key] = fingerprint
    }

    /// The change failed: the key is free again.
    package mutating func abandon(_ key: Key) {
        pending[key] = nil
    }

    /// The change is durable (or replayed from the disk): its answer is kept.
    package mutating func finish(_ use: IdempotencyKeyUse, now: Int64) {
        let key = use.ledgerKey
        pending[key] = nil
        if let replaced = uses.updateValue(use, forKey: key) {
            byteCount -= replaced.byteCount
        } else {
            order.append(key)
        }
        byteCount += use.byteCount
        // Forget the oldest keys past the byte cap, and those past both other limits: older
        // than a day, beyond the last 100,000. (An age in 128 bits: a time read from storage
        // can be anything, and a difference of two far apart overflowed.)
        while first < order.count, let oldest = uses[order[first]],
            byteCount > byteLimit || (order.count - first > Self.minimumKept && Int128(now) - Int128(oldest.at) > Int128(Self.keptSeconds))
        {
            byteCount -= oldest.byteCount
            uses[order[first]] = nil
            first += 1
        }
        if first > 4_096 && first * 2 > order.count {
            order.removeFirst(first)
            first = 0
        }
    }

    /// How many keys are kept.
    package var count: Int { uses.count }

    /// Every kept use, oldest first (what a snapshot saves).
    package var all: [IdempotencyKeyUse] {
        order[first...].compactMap { uses[$0] }
    }
}
