import Foundation
import TripsDomain
import TripsPostgres

/// The trip list's tables in PostgreSQL (`TripsSchema`), read and written over one
/// connection, for a store that keeps the list in memory and the database in charge.
///
/// A write is one transaction that first locks the `trips_state` row (`FOR UPDATE`), so the
/// writers of every instance take turns there. It catches up on what other instances wrote
/// (`trip_changes` after the revision in memory), plans each change against that list (so a
/// precondition such as `If-Match` is checked inside the transaction), applies it, and writes
/// only what it changed: k rows for k trips touched (`TripPositions`, whose keys the state
/// keeps in memory, `TripPositionKeys`), the change's journal record, event and keys, the new
/// revision, and a notification on `channel` that commits with it.
///
/// Statements whose answer nothing waits for (`execute`: the writes, `BEGIN`) are queued and
/// sent with the next query, or with `COMMIT`, in one pipeline: a transaction is two round
/// trips (lock and catch up; write and commit), whatever it holds, with one statement per
/// table and kind of write (`PendingTripRows`). A batch of new trips at the end that read
/// nothing of the list is one round trip, the lock held by PostgreSQL alone
/// (`commitAppends`).
package final class PostgresTripTables {
    /// What `NOTIFY` announces a new revision on.
    static let channel = "trips_changes"

    /// The list, its recent changes and idempotency keys, as of one revision of the tables.
    package struct State: Sendable {
        var list: TripList
        var history: ChangeHistory
        var ledger: IdempotencyLedger
        /// Each trip's position key; nil when a change was replayed without the keys it gave,
        /// until the next transaction reads them from the table.
        var keys: TripPositionKeys?
    }

    /// How `catchUp` brought a state up to the tables' revision.
    enum CatchUp: Equatable {
        /// It replayed this many changes.
        case replayed(Int)
        /// It read everything again: changes it had not seen were pruned (`prune`).
        case reloaded
    }

    let connection: PostgresConnection
    /// Statements queued by `execute`, sent before the next query's.
    var queued: [PostgresStatement] = []
    /// What the last `commit` or `catchUp` did to its state, in order (`State.redo`); nil when
    /// it read the state whole again.
    package internal(set) var steps: [Step]? = []
    /// The phases of the last transaction `commit` made, once it committed; nil otherwise.
    package internal(set) var timing: WriteTransactionTiming?

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    // MARK: Reading

    /// Writes `list` as the tables' first content when they are new (revision 0, no id ever
    /// issued), as a new data folder starts with the sample trips, with `photos`, the bytes of
    /// the photos its trips show, ahead of the rows that refer to them; when two instances
    /// start together, the first to lock the state row seeds and the other finds it done.
    func seed(_ list: TripList, photos: [PhotoBytes]) throws(PostgresStoreError) {
        try transaction("BEGIN") { () throws(PostgresStoreError) in
            let (revision, lastIssuedID) = try readState(locking: true)
            guard revision == 0, lastIssuedID == 0, list.lastIssuedID > 0 else { return }
            let trips = Array(list.trips)
            guard let keys = TripPositions.spread(trips.count, from: nil, to: nil) else { return }
            for photo in photos { insertPhoto(photo) }
            insertRows(trips, at: keys, versions: trips.map { list.version(of: $0.id) ?? list.revision })
            execute(
                "UPDATE trips_state SET revision = $1, last_issued_id = $2", [String(list.revision), String(list.lastIssuedID)])
        }
    }

    /// Brings `state` up to the tables' revision by replaying the changes after it, as the
    /// journal's replay does, or, when some of them were pruned, by loading everything again;
    /// `steps` says which. When it throws, `state` may hold some of the changes.
    @discardableResult
    func catchUp(_ state: inout State) throws(PostgresStoreError) -> CatchUp {
        steps = []
        var replay = Replay()
        try query(Self.changes(after: state)) { row in replay.take(row, onto: &state, steps: &steps) }
        if let replayed = try replay.count() { return .replayed(replayed) }
        let loaded = try load(historyCapacity: state.history.capacity, ledger: IdempotencyLedger(byteLimit: state.ledger.byteLimit))
        // Revisions only grow: tables behind what was read from them are damaged, not newer.
        guard loaded.list.revision >= state.list.revision else {
            throw .damaged("the tables went back from revision \(state.list.revision) to \(loaded.list.revision)")
        }
        state = loaded
        steps = nil
        return .reloaded
    }

    /// The changes after `state`'s revision, in order, with the position keys each gave and the
    /// event the writing instance told of each (taken as written: making it again here would
    /// write the trips' JSON once more on every instance for every other instance's change).
    ///
    /// Bounded above by the state row's revision (which every change's transaction writes, so
    /// the bound leaves none out): a range on the primary key, which PostgreSQL reads through
    /// the index in any plan. With `revision > $1` alone, the generic plan a prepared
    /// statement gets guessed that a third of the table matches, and scanned and sorted the
    /// whole history in every transaction, under the lock that orders the writers: 2.2 ms at
    /// 36,000 changes, growing with `--history`.
    ///
    /// An append transaction, which has moved the state row on by its own `count` changes
    /// already, reads those before them: the bound less `count`.
    static func changes(after state: State, beforeTheLast count: Int = 0) -> PostgresStatement {
        PostgresStatement(
            """
            SELECT revision, record, positions, event, data FROM trip_changes
            WHERE revision > $1 AND revision <= (SELECT revision FROM trips_state) - $2 ORDER BY revision
            """,
            [String(state.list.revision), String(count)], prepared: true)
    }

    /// The rows of `changes(after: state)`, replayed onto `state` as they are read, each a
    /// step: none when the first does not follow the state's revision (it was pruned: the
    /// caller reads everything again), and none after one that does not apply.
    struct Replay {
        private var replayed = 0
        private var isPruned = false
        private var failure: PostgresStoreError?

        mutating func take(_ row: PostgresRowValues, onto state: inout State, steps: inout [Step]?) {
            guard failure == nil, !isPruned else { return }
            do throws(PostgresStoreError) {
                if replayed == 0 {
                    guard row.count == 5 else { throw .damaged("a trip_changes row reads \(PostgresTripTables.describe(row))") }
                    guard row.integer(0).flatMap({ UInt64(exactly: $0) }) == state.list.revision + 1 else {
                        isPruned = true
                        return
                    }
                }
                steps?.append(try PostgresTripTables.replay(row, onto: &state))
                replayed += 1
            } catch {
                failure = error
            }
        }

        /// How many changes were replayed; nil, with the state as it was, when the first was
        /// pruned. Throws what a row met (the state may hold the changes before it).
        func count() throws(PostgresStoreError) -> Int? {
            if let failure { throw failure }
            return isPruned ? nil : replayed
        }
    }

    /// Deletes what no instance needs any longer: the changes before the newest
    /// `retention.changes` (an instance further behind loads everything again), the
    /// idempotency keys `IdempotencyLedger` would forget: used more than `retention.keySeconds`
    /// before `now`, and not among the newest `retention.keys`; or past the newest
    /// `retention.keyBytes` of them; and the photos no trip refers to.
    func prune(_ retention: PostgresRetention, now: Int64) throws(PostgresStoreError) {
        execute(
            "DELETE FROM trip_changes WHERE revision <= (SELECT revision FROM trips_state) - $1", [String(retention.changes)])
        execute(
            """
            DELETE FROM trip_idempotency_keys WHERE used_at < $1 AND used_at < (
                SELECT used_at FROM trip_idempotency_keys ORDER BY used_at DESC OFFSET $2 LIMIT 1)
            """,
            [String(now - retention.keySeconds), String(max(retention.keys - 1, 0))])
        execute(
            """
            DELETE FROM trip_idempotency_keys k USING (
                SELECT scope, key FROM (
                    SELECT scope, key, sum(octet_length(use)) OVER (ORDER BY used_at DESC, scope DESC, key DESC) AS newer_bytes
                    FROM trip_idempotency_keys) t
                WHERE newer_bytes > $1) old
            WHERE k.scope = old.scope AND k.key = old.key
            """,
            [String(retention.keyBytes)])
        try flush()
        try prunePhotos()
    }

    /// Deletes the photos no trip refers to, holding the state row as writers do: a writer
    /// may be about to refer to a photo again (its row already there, `ON CONFLICT DO
    /// NOTHING`), so the two take turns.
    func prunePhotos() throws(PostgresStoreError) {
        try transaction("BEGIN") { () throws(PostgresStoreError) in
            _ = try readState(locking: true)
            execute("DELETE FROM trip_photos p WHERE NOT EXISTS (SELECT FROM trips t WHERE t.photo_digest = p.digest)")
        }
    }

    // MARK: Statements

    /// Every trip in the list's order, each row as `trip(_:photos:strings:)` reads it. The
    /// photos are read apart (`photosWithoutBytes`): a join would cost the database a lookup
    /// per trip, most of its time at a million.
    static let tripsInOrder = PostgresStatement(
        """
        SELECT id, version, city, country, nights, is_favorite, image_name, price, start, notes, photo_digest, position
        FROM trips ORDER BY position
        """)

    /// How many trips `readAll` hands its list's builder at a time (`TripListAssembly`).
    static let assemblyBatchSize = 4_096

    /// What `trips` rows refer to in `trip_photos`, without the bytes.
    static let photosWithoutBytes = PostgresStatement(
        "SELECT digest, type, width, height, octet_length(bytes) FROM trip_photos")

    /// The list's revision and the highest id issued; `locking` holds the row until the
    /// transaction ends, so writers take turns.
    func readState(locking: Bool) throws(PostgresStoreError) -> (revision: UInt64, lastIssuedID: Int) {
        try Self.revisionAndLastID(query(Self.stateRow(locking: locking)))
    }

    static func stateRow(locking: Bool) -> PostgresStatement {
        PostgresStatement(
            locking ? "SELECT revision, last_issued_id FROM trips_state FOR UPDATE" : "SELECT revision, last_issued_id FROM trips_state",
            prepared: true)
    }

    /// `stateRow(locking: true)`, which also names the session after `traceparent` until the
    /// transaction ends (`application_name`, set local: the connection's own name returns at
    /// `COMMIT` or `ROLLBACK`), so that `pg_stat_activity`, and a statement log with `%a` in
    /// `log_line_prefix`, show which request's transaction a slow or waiting statement is in,
    /// for each of its statements. The name is set as the row is read, before its lock is
    /// waited for; in the same statement, not one of its own (a statement fewer in every
    /// write transaction, for PostgreSQL to run and this process to read the answers of).
    /// (A comment on the first statement would name that one only, and be SQL built from a
    /// request's data; this is a bound parameter.)
    ///
    /// A transaction that makes the changes of several requests at once carries the first
    /// one's: the oldest waiting, whose request waited for the whole transaction, and each
    /// later one's access log line names its own trace. 55 characters: within the 63 bytes a
    /// name may have.
    static func lockingStateRow(naming traceparent: String?) -> PostgresStatement {
        guard let traceparent else { return stateRow(locking: true) }
        return PostgresStatement(
            "SELECT revision, last_issued_id, set_config('application_name', $1, true) FROM trips_state FOR UPDATE", [traceparent],
            prepared: true)
    }

    /// The first two columns (a third is `lockingStateRow`'s name) are `bigint`s at or above
    /// zero (the table's checks), and the last id at most
    /// `TripList.maximumLastIssuedID`: anything else, even from a server that is not
    /// PostgreSQL, is damage, and no later count past them traps.
    static func revisionAndLastID(_ result: PostgresRows) throws(PostgresStoreError) -> (revision: UInt64, lastIssuedID: Int) {
        let rows = result.rows
        guard rows.count == 1, rows[0].count >= 2, let revision = rows[0][0].flatMap({ Int64($0) }), revision >= 0,
            let last = rows[0][1].flatMap({ Int($0) }), (0...TripList.maximumLastIssuedID).contains(last)
        else { throw .damaged("trips_state does not hold one row of two counts") }
        return (UInt64(revision), last)
    }

    func query(_ sql: String, _ parameters: PostgresParameters = []) throws(PostgresStoreError) -> PostgresRows {
        try query(PostgresStatement(sql, parameters))
    }

    func query(_ statement: PostgresStatement) throws(PostgresStoreError) -> PostgresRows {
        try queries([statement])[0]
    }

    /// Runs the queued statements and then `statement` in one round trip, handing its rows
    /// to `eachRow` as they are read (`PostgresConnection.pipeline(_:eachRowOfLast:)`).
    func query(_ statement: PostgresStatement, eachRow: (PostgresRowValues) -> Void) throws(PostgresStoreError) {
        _ = try queries([statement], eachRowOfLast: eachRow)
    }

    /// `queries`, the last statement's rows handed to `eachRow` as they are read (its result
    /// holds none).
    func queries(
        _ statements: [PostgresStatement], eachRowOfLast eachRow: (PostgresRowValues) -> Void
    ) throws(PostgresStoreError) -> [PostgresRows] {
        Array(
            try afterQueued(statements) { (sending) throws(PostgresConnectionError) in
                try connection.pipeline(sending, eachRowOfLast: eachRow)
            }
            .suffix(statements.count))
    }

    /// Runs the queued statements and then `statements` in one round trip; answers the
    /// latter's results.
    func queries(_ statements: [PostgresStatement]) throws(PostgresStoreError) -> [PostgresRows] {
        Array(
            try afterQueued(statements) { (sending) throws(PostgresConnectionError) in try connection.pipeline(sending) }
                .suffix(statements.count))
    }

    /// Hands `run` the queued statements followed by `statements`, none queued any longer.
    private func afterQueued(
        _ statements: [PostgresStatement], _ run: ([PostgresStatement]) throws(PostgresConnectionError) -> [PostgresRows]
    ) throws(PostgresStoreError) -> [PostgresRows] {
        var sending: [PostgresStatement] = []
        swap(&sending, &queued)
        do {
            return try run(sending + statements)
        } catch {
            throw .database(error)
        }
    }

    /// Queues a statement whose answer nothing needs: it runs before the next query, or with
    /// `COMMIT` (`flush` sends it now). `prepared`: a statement every write sends, parsed once
    /// per connection (`PostgresStatement.isPrepared`); not one whose plan depends on its
    /// values, which a generic plan would serve badly.
    func execute(_ sql: String, _ parameters: PostgresParameters = [], prepared: Bool = false) {
        queued.append(PostgresStatement(sql, parameters, prepared: prepared))
    }

    /// Runs the statements queued.
    func flush() throws(PostgresStoreError) {
        _ = try queries([])
    }

    /// Runs `body` between `begin` and `COMMIT`, both sent with other statements (`execute`);
    /// rolls back when it throws. A session that ends while `COMMIT` is in flight is
    /// `.commitOutcomeUnknown`, never an error that would have the caller run the work again.
    func transaction<Value>(_ begin: String, _ body: () throws(PostgresStoreError) -> Value) throws(PostgresStoreError) -> Value {
        queued = [PostgresStatement(begin, prepared: true)]
        do throws(PostgresStoreError) {
            let value = try body()
            execute("COMMIT", prepared: true)
            let sending = queued.count
            do throws(PostgresStoreError) {
                try flush()
            } catch .database(let error) where !error.leavesConnectionUsable || connection.answeredStatements == sending {
                // The session ended with `COMMIT` in flight, or an error came after `COMMIT`
                // answered (PostgreSQL never sends one there): either way it may have committed.
                throw .commitOutcomeUnknown(error)
            }
            return value
        } catch {
            queued = []
            // Already failing; the error says why.
            if connection.isOpen, connection.transactionStatus != .idle { _ = try? connection.simpleQuery("ROLLBACK") }
            throw error
        }
    }
}
