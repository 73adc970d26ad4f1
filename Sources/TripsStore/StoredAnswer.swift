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
