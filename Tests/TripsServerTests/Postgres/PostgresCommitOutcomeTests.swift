import Testing
import TripsDomain

@testable import TripsPlatform
@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// A session that ends around `COMMIT`, played from a script: a COMMIT the server answered
/// stands even when the session ends before ReadyForQuery (`pg_terminate_backend` right after
/// a commit), and a COMMIT sent but not answered is never taken for a transaction that did not
/// commit (the store would make the change a second time on a new connection).
@Suite struct PostgresCommitOutcomeTests {
    static let shutdown = Wire.error("57P01", "terminating connection due to administrator command", severity: "FATAL")
    /// What the server says to an unnamed statement without rows: ParseComplete, BindComplete,
    /// NoData, CommandComplete.
    static func finished(_ tag: String) -> [UInt8] {
        Wire.message("1", []) + Wire.message("2", []) + Wire.message("n", []) + Wire.commandComplete(tag)
    }

    @Test func answersGivenBeforeTheSessionEndedStand() throws {
        let (server, connection) = try PostgresConnectionTests.connected()
        try server.say(Self.finished("UPDATE 1") + Self.finished("COMMIT") + Self.shutdown)
        let results = try connection.pipeline([PostgresStatement("UPDATE trips_state SET revision = 2"), PostgresStatement("COMMIT")])
        #expect(results.map(\.commandTag) == ["UPDATE 1", "COMMIT"])
        #expect(!connection.isOpen, "the session is over all the same")
    }

    @Test func aSessionEndedBeforeTheLastAnswerIsStillAnError() throws {
        let (server, connection) = try PostgresConnectionTests.connected()
        try server.say(Self.finished("UPDATE 1") + Self.shutdown)
        let error = try #require(throws: PostgresConnectionError.self) {
            try connection.pipeline([PostgresStatement("UPDATE trips_state SET revision = 2"), PostgresStatement("COMMIT")])
        }
        #expect(error.serverError?.sqlState == .adminShutdown)
        #expect(!connection.isOpen)
    }

    /// BEGIN and the writes answered, then the session ends (a FATAL, or the socket closes)
    /// with COMMIT unanswered: the outcome is unknown, which the store answers 503 without
    /// running the transaction again.
    @Test(arguments: [true, false])
    func aCommitLeftUnansweredHasAnUnknownOutcome(fatal: Bool) throws {
        let (server, connection) = try PostgresConnectionTests.connected()
        let tables = PostgresTripTables(connection: connection)
        // BEGIN and COMMIT are named statements, parsed on first use: ParseComplete comes first too.
        try server.say(Self.finished("BEGIN") + Self.finished("UPDATE 1") + (fatal ? Self.shutdown : []))
        if !fatal { server.hangUp() }
        let error = try #require(throws: PostgresStoreError.self) {
            try tables.transaction("BEGIN") { () throws(PostgresStoreError) in
                tables.execute("UPDATE trips_state SET revision = 2")
            }
        }
        Self.expectUnknownOutcome(error)
        #expect(error.description.contains("may have been made"))
    }

    /// A statement the server refused (an ordinary ERROR) aborts the transaction: it did not
    /// commit, and the error keeps its own handling.
    @Test func aRefusedStatementBeforeCommitKeepsItsHandling() throws {
        let (server, connection) = try PostgresConnectionTests.connected()
        let tables = PostgresTripTables(connection: connection)
        try server.say(
            Self.finished("BEGIN") + Wire.message("1", []) + Wire.message("2", [])
                + Wire.error("40001", "could not serialize access") + Wire.readyForQuery("E")
                + Wire.message("C", Wire.cString("ROLLBACK")) + Wire.readyForQuery())
        let error = try #require(throws: PostgresStoreError.self) {
            try tables.transaction("BEGIN") { () throws(PostgresStoreError) in
                tables.execute("UPDATE trips_state SET revision = 2")
            }
        }
        #expect(error.handling == .retry)
    }

    /// An append transaction is one pipeline, `COMMIT` last. A session that ended before the
    /// statements ahead of `COMMIT` were all answered never began it: the error is the
    /// server's (made again on a new connection). Once they were, `COMMIT` may have run.
    @Test(arguments: [false, true])
    func anAppendTransactionsOutcomeIsUnknownOnlyOnceItsCommitMayHaveBegun(answeredAllButCommit: Bool) throws {
        let (server, connection) = try PostgresConnectionTests.connected()
        let tables = PostgresTripTables(connection: connection)
        var state = PostgresTripTables.State(
            list: TripList.samples, history: ChangeHistory(capacity: 10, revision: TripList.samples.revision), ledger: IdempotencyLedger(),
            keys: nil)
        let rowsAhead =
            Self.rows(["revision", "last_issued_id", "pg_notify"], [[String(TripList.samples.revision), "6", ""]])
            + Self.rows(["revision", "record", "positions", "event", "data"], [])
            + Self.rows(["position"], [["393216"]])
        try server.say(Self.finished("BEGIN") + (answeredAllButCommit ? rowsAhead : []) + Self.shutdown)
        let error = try #require(throws: PostgresStoreError.self) {
            try tables.commit([ChangeRequest(plan: { _ in .add(storageDraft("Faro")) }, readsNoList: true)], to: &state)
        }
        if answeredAllButCommit {
            Self.expectUnknownOutcome(error)
        } else {
            #expect(error.handling == .reconnect, "\(error)")
        }
        #expect(state.list == TripList.samples, "nothing of it taken")
    }

    /// An error after `COMMIT` answered, which PostgreSQL never sends (its errors come before
    /// the statement's CommandComplete): the transaction may stand, so it is never made again,
    /// on either path. (Taken for a lost race, an append was made twice and a delete answered 404.)
    @Test(arguments: [false, true])
    func anErrorAfterCommitAnsweredHasAnUnknownOutcome(appends: Bool) throws {
        let (server, connection) = try PostgresConnectionTests.connected()
        let tables = PostgresTripTables(connection: connection)
        let writes =
            appends
            ? Self.rows(["revision", "last_issued_id", "pg_notify"], [[String(TripList.samples.revision), "6", ""]])
                + Self.rows(["revision", "record", "positions", "event", "data"], []) + Self.rows(["position"], [["393216"]])
            : Self.finished("UPDATE 1")
        try server.say(
            Self.finished("BEGIN") + writes + Self.finished("COMMIT") + Wire.error("40001", "could not serialize access")
                + Wire.readyForQuery("E") + Wire.message("C", Wire.cString("ROLLBACK")) + Wire.readyForQuery())
        var state = Self.state(at: TripList.samples.revision)
        let error = try #require(throws: PostgresStoreError.self) {
            if appends {
                _ = try tables.commit([ChangeRequest(plan: { _ in .add(storageDraft("Faro")) }, readsNoList: true)], to: &state)
            } else {
                try tables.transaction("BEGIN") { () throws(PostgresStoreError) in
                    tables.execute("UPDATE trips_state SET revision = 2")
                }
            }
        }
        Self.expectUnknownOutcome(error)
        #expect(state.list == Self.state(at: TripList.samples.revision).list, "nothing of it taken")
        #expect(connection.transactionStatus == .idle, "rolled back, not left failed for the next transaction")
    }

    /// A database whose state row answers a revision behind what this instance already read
    /// (a hostile server, or tables restored from an older backup) is damage, not a crash, even
    /// when the changes it sends do not follow on either.
    @Test func anAppendTransactionBehindTheRevisionReadIsDamage() throws {
        let (server, connection) = try PostgresConnectionTests.connected()
        let tables = PostgresTripTables(connection: connection)
        var state = Self.state(at: 10)
        let stray = [["3", #"{"revision":3,"add":[]}"#, "", "created", #"{"revision":3}"#]]
        try server.say(
            Self.finished("BEGIN") + Self.rows(["revision", "last_issued_id", "pg_notify"], [["0", "6", ""]])
                + Self.rows(["revision", "record", "positions", "event", "data"], stray) + Self.rows(["position"], [["393216"]])
                + Self.finished("COMMIT") + Wire.readyForQuery())
        let error = try #require(throws: PostgresStoreError.self) {
            try tables.commit([ChangeRequest(plan: { _ in .add(storageDraft("Faro")) }, readsNoList: true)], to: &state)
        }
        guard case .damaged(let damage) = error else {
            Issue.record("expected damage, got \(error)")
            return
        }
        #expect(damage.contains("behind"), "\(damage)")
    }

    /// Records an issue unless `error` is an unknown outcome: answered 503, never made again.
    static func expectUnknownOutcome(_ error: PostgresStoreError, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .commitOutcomeUnknown = error else {
            Issue.record("expected an unknown outcome, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.handling == .unavailable, "answered 503, not run again", sourceLocation: sourceLocation)
    }

    /// A state at `revision` holding the samples.
    static func state(at revision: UInt64) -> PostgresTripTables.State {
        PostgresTripTables.State(
            list: TripList(trips: Trip.samples, revision: revision), history: ChangeHistory(capacity: 10, revision: revision),
            ledger: IdempotencyLedger(), keys: nil)
    }

    /// What the server says to a named statement's first run that answers `rows`: ParseComplete,
    /// BindComplete, RowDescription, the DataRows, CommandComplete.
    static func rows(_ columns: [String], _ rows: [[String?]]) -> [UInt8] {
        Wire.message("1", []) + Wire.message("2", []) + Wire.rowDescription(columns) + rows.flatMap(Wire.dataRow)
            + Wire.commandComplete("SELECT \(rows.count)")
    }
}
