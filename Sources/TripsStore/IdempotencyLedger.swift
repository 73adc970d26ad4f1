import TripsDomain

/// A change's first answer, as kept so that a retry with the same `Idempotency-Key` gets it
/// again: the status, the fields a retry needs, and the body when it is small.
package struct StoredAnswer: Sendable, Equatable {
    /// The largest body kept: 16 KiB. A sort, reorder or drop answers with the whole list (3 MB
    /// at 20,000 trips), which a key would otherwise keep in memory and the journal for a day.
    package static let maximumBodyBytes = 16 << 10

    package var status: Int
    /// The fields worth repeating: `Content-Type`, `Location`, `ETag`, `Trips-Revision`, `Vary`.
    package var fields: [String: String]
    package var content: Content

    package init(status: Int, fields: [String: String], content: Content) {
        self.status = status
        self.fields = fields
        self.content = content
    }

    /// What a retry is sent as the body.
    package enum Content: Sendable, Equatable {
        /// The first answer's body, byte for byte.
        case body([UInt8])
        /// The first body was larger than `maximumBodyBytes`: what the change did, by id, so
        /// a retry is answered from the list as it is then (with the first status and fields).
        case remade(KeptOutcome)
    }

    /// The answer as it is kept: the body only when it is at most `maximumBodyBytes`,
    /// otherwise `outcome`, what the change did.
    package func kept(for outcome: TripChangeOutcome?) -> StoredAnswer {
        guard case .body(let body) = content, body.count > Self.maximumBodyBytes else { return self }
        return StoredAnswer(status: status, fields: fields, content: .remade(KeptOutcome(outcome)))
    }

    /// About what the answer holds in memory, for the ledger's byte cap.
    package var byteCount: Int {
        let fieldBytes = fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 32 }
        switch content {
        case .body(let body): return fieldBytes + body.count
        case .remade(let outcome): return fieldBytes + outcome.byteCount
        }
    }
}

/// What a change did, by id (`TripChangeOutcome` without the trips): enough to answer a retry
/// from the list as it is later.
package enum KeptOutcome: Sendable, Equatable {
    /// One trip: created, replaced, made a favorite or not.
    case trip(Trip.ID)
    /// Several trips created, in order.
    case added([Trip.ID])
    /// The trips a drop made favorites.
    case addedFavorites([Trip.ID])
    /// A sort, reorder or delete: whether the list changed.
    case listChanged(Bool)
    /// The plan found nothing to do.
    case nothing

    package init(_ outcome: TripChangeOutcome?) {
        switch outcome {
        case .trip(let trip)?: self = .trip(trip.id)
        case .added(let trips)?: self = .added(trips.map(\.id))
        case .addedFavorites(let ids)?: self = .addedFavorites(ids)
        case .listChanged(let changed)?: self = .listChanged(changed)
        case nil: self = .nothing
        }
    }

    /// The outcome as `list` now shows it: the trips as they are now, those deleted since
    /// left out; nil when every trip it names was deleted since (and for `nothing`).
    package func outcome(in list: TripList) -> TripChangeOutcome? {
        switch self {
        case .trip(let id): list[id].map { .trip($0) }
        case .added(let ids):
            ids.contains { list[$0] != nil } ? .added(ids.compactMap { list[$0] }) : nil
        case .addedFavorites(let ids): .addedFavorites(ids)
        case .listChanged(let changed): .listChanged(changed)
        case .nothing: nil
        }
    }

    package var byteCount: Int {
        switch self {
        case .trip: 8
        case .added(let ids), .addedFavorites(let ids): 8 * ids.count
        case .listChanged, .nothing: 1
        }
    }
}

/// One use of an idempotency key: whose key (the token's name; empty without tokens), what the
/// request was (its SHA-256 fingerprint), when, and what it got.
package struct IdempotencyKeyUse: Sendable, Equatable {
    package var key: String
    /// The name of the token the request carried: keys of different tokens never meet.
    package var scope: String = ""
    package var fingerprint: String
    /// Seconds since 1970, when the change was made.
    package var at: Int64
    package var answer: StoredAnswer

    package var ledgerKey: IdempotencyLedger.Key { IdempotencyLedger.Key(scope: scope, key: key) }

    /// About what the use holds in memory, for the ledger's byte cap.
    package var byteCount: Int {
        key.utf8.count + scope.utf8.count + fingerprint.utf8.count + answer.byteCount + 64
    }
}

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
        // than a day, beyond the last 100,000.
        while first < order.count, let oldest = uses[order[first]],
            byteCount > byteLimit || (order.count - first > Self.minimumKept && now - oldest.at > Self.keptSeconds)
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
