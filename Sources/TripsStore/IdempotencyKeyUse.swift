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
