/// A five-character SQLSTATE error code, as the server reports it in ErrorResponse's C field.
///
/// An open set: the ones Trips acts on are named here, each with what the store does when a
/// statement fails with it (`PostgresStoreError.handling`). The first two characters are the
/// class (`23` integrity constraint violation, `40` transaction rollback, `57` operator
/// intervention). A code of classes 08, 53 and 57 is a 503, as the named ones below say; any
/// other code not named here is a 500 and a log line: the store did not expect it.
/// https://www.postgresql.org/docs/current/errcodes-appendix.html
package struct SQLState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String

    /// Accepts five ASCII digits or capital letters, which every SQLSTATE is.
    package init?(rawValue: String) {
        let utf8 = rawValue.utf8
        guard utf8.count == 5, utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) else {
            return nil
        }
        self.rawValue = rawValue
    }

    /// The two-character class, such as `40` for every transaction rollback.
    package var errorClass: Substring { rawValue.prefix(2) }

    package var description: String { rawValue }

    /// For the codes below, spelled as the constants they are.
    private init(_ code: StaticString) {
        self.rawValue = code.description
    }

    // Class 23, integrity constraint violation: every change is planned against the list in
    // a transaction that holds the state row's lock, so the store never breaks a constraint
    // unless it has a fault: 500 and a log line, never a retry.

    /// 23505: a UNIQUE or PRIMARY KEY constraint refused a duplicate (the same trip ID or
    /// idempotency key twice).
    static let uniqueViolation = SQLState("23505")

    // Class 40, transaction rollback: the transaction lost a race and was undone; the store
    // retries it from BEGIN, a bounded number of times, before answering 503.

    /// 40001: serializable (or repeatable read) isolation found a conflict: retry.
    package static let serializationFailure = SQLState("40001")
    /// 40P01: two transactions waited for each other and this one was chosen to die: retry.
    package static let deadlockDetected = SQLState("40P01")

    // The server cannot serve us now (classes 53, 55, 57, and 25006). The store answers 503
    // Service Unavailable with Retry-After, drops the connection where the code says the
    // session is gone, and reconnects with backoff.

    /// 57P01: the server is shutting down (`pg_ctl stop -m fast`, or a restart): it ended the
    /// session, and any transaction in it, uncommitted. The store runs the transaction again
    /// once on a new connection (an idle one kept from before a restart says this first),
    /// then 503.
    package static let adminShutdown = SQLState("57P01")
    /// 57P02: another server process crashed and the server ended every session, their
    /// transactions uncommitted: as 57P01.
    package static let crashShutdown = SQLState("57P02")
    /// 57P03: the server is starting up or in recovery: 503, reconnect later.
    static let cannotConnectNow = SQLState("57P03")
    /// 53300: every connection slot is taken: 503, reconnect later.
    static let tooManyConnections = SQLState("53300")
    /// 57014: a statement timeout or a cancel request stopped the query: 503 (the database is
    /// too slow to answer now), no retry on the same request.
    package static let queryCanceled = SQLState("57014")
    /// 55P03: `NOWAIT` or `lock_timeout` gave up on a lock: retry, as for class 40.
    package static let lockNotAvailable = SQLState("55P03")
    /// 25006: a write reached a read-only server (a standby after a failover, or
    /// `default_transaction_read_only`): 503, reconnect, as for the codes above.
    package static let readOnlySQLTransaction = SQLState("25006")

    // A schema fault is a bug or a misconfiguration on our side: 500 and a log line.

    /// 42P01: a table the store expects is missing (the schema was never created).
    static let undefinedTable = SQLState("42P01")

    // Class 28, invalid authorization: our configuration is wrong. At start the store refuses
    // to start; later (a password changed under a running server) it comes from connecting,
    // so writes get 503 while the pool keeps trying, until the configuration is mended.

    /// 28P01: the password (or the SCRAM proof) was wrong.
    static let invalidPassword = SQLState("28P01")
    /// 28000: no pg_hba.conf line lets this user in, or the role may not log in.
    static let invalidAuthorizationSpecification = SQLState("28000")

}
