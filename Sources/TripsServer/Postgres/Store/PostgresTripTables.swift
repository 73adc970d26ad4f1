import Foundation
import TripsDomain

/// The trip list's tables in PostgreSQL (`TripsSchema`), read and written over one
/// connection, for a store that keeps the list in memory and the database in charge.
///
/// A write is one transaction that first locks the `trips_state` row (`FOR UPDATE`), so the
/// writers of every instance take turns there. It catches up on what other instances wrote
/// (`trip_changes` after the revision in memory), plans each change against that list (so a
/// precondition such as `If-Match` is checked inside the transaction), applies it, and writes
/// only what it changed: k rows for k trips touched (`TripPositions`), the change's journal
/// record and event, the new revision, and a notification on `channel` that commits with it.
///
/// Statements whose answer nothing waits for (`execute`: the writes, `BEGIN`) are queued and
/// sent with the next query, or with `COMMIT`, in one pipeline: a transaction of creates is
/// three round trips (lock and catch up, find the end, write and commit), whatever it holds.
final class PostgresTripTables {
    /// What `NOTIFY` announces a new revision on.
    static let channel = "trips_changes"

    /// The list, its recent changes and idempotency keys, as of one revision of the tables.
    struct State: Sendable {
        var list: TripList
        var history: ChangeHistory
        var ledger: IdempotencyLedger
    }

    /// One change to make, planned against the list as the transaction finds it: nil for
    /// "nothing to do". With `key`, a key the tables already hold answers as the ledger says
    /// (a replay, a conflict) instead; `keyUse` makes the key's use to keep with the change
    /// from what it did.
    struct Write {
        var plan: (TripList) throws(MutationError) -> TripChange?
        var key: (key: IdempotencyLedger.Key, fingerprint: String)? = nil
        var keyUse: ((Written) -> IdempotencyKeyUse?)? = nil
    }

    /// What a write did, once planned and applied.
    struct Written: Sendable {
        /// nil when the plan found nothing to do.
        let change: TripChange?
        let outcome: TripChangeOutcome?
        /// The list right after it.
        let list: TripList
        /// Its event, or nil when it changed nothing (and was not written).
        let event: ChangeEvent?
    }

    /// How `catchUp` brought a state up to the tables' revision.
    enum CatchUp: Equatable {
        /// It replayed this many changes.
        case replayed(Int)
        /// It read everything again: changes it had not seen were pruned (`prune`).
        case reloaded
    }

    /// How one write of a transaction ended.
    enum WriteResult: Sendable {
        /// Made (or found nothing to do), with the idempotency key's use kept with it.
        case written(Written, keyUse: IdempotencyKeyUse?)
        /// Its idempotency key was used before for the same request: its first answer, and the
        /// list as it is now (to make an answer too large to keep again from).
        case replayed(StoredAnswer, list: TripList)
        case refused(MutationError)
    }

    let connection: PostgresConnection
    /// During a `commit`: a key no lower than any position in the table, once a placement at
    /// the end found it (nil: not known yet). The next trips added at the end take the keys
    /// after it without asking the table again.
    private var endKey: Int64?
    /// During a `commit`: trips added at the end whose rows are not written yet, so that a
    /// run of creates is one `INSERT`; written before any other statement.
    private var unwritten: (trips: [Trip], keys: [Int64], versions: [UInt64]) = ([], [], [])
    /// Statements queued by `execute`, sent before the next query's.
    private var queued: [PostgresStatement] = []

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    // MARK: Reading

    /// The whole state in one consistent snapshot of the tables: the list in order, the last
    /// `historyCapacity` events, and the idempotency keys.
    func load(historyCapacity: Int, ledger: IdempotencyLedger) throws(PostgresStoreError) -> State {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") { () throws(PostgresStoreError) in
            try readAll(historyCapacity: historyCapacity, ledger: ledger)
        }
    }

    /// `load`'s reading, in a transaction that sees the tables still (a snapshot, or the
    /// state row locked); the keys go into `ledger`, an empty one with the configured cap.
    private func readAll(historyCapacity: Int, ledger: consuming IdempotencyLedger) throws(PostgresStoreError) -> State {
        let (revision, lastIssuedID) = try readState(locking: false)
        let rows = try query(
            "SELECT id, version, city, country, nights, is_favorite, image_name, price, start, notes FROM trips ORDER BY position"
        ).rows
        var restoration = TripList.Restoration(expectedCount: rows.count, revision: revision, lastIssuedID: Int(lastIssuedID))
        for row in rows {
            let (trip, version) = try Self.trip(row)
            guard restoration.append(trip, version: version) else { throw .damaged("trip \(trip.id) appears twice") }
        }
        let list = restoration.finish()

        let events = try query(
            "SELECT revision, event, data FROM trip_changes ORDER BY revision DESC LIMIT $1", [String(historyCapacity)]
        ).rows.reversed().map { (row) throws(PostgresStoreError) in try Self.event(row) }
        var history = ChangeHistory(capacity: historyCapacity, revision: revision - UInt64(events.count))
        for (index, event) in events.enumerated() {
            guard event.revision == history.revision + 1 else {
                throw .damaged("change \(event.revision) follows \(history.revision) (number \(index) of the history)")
            }
            history.append(event)
        }
        guard history.revision == revision else {
            throw .damaged("the last change is \(history.revision), the list's revision \(revision)")
        }

        let now = Int64(time(nil))
        for row in try query("SELECT use FROM trip_idempotency_keys ORDER BY used_at, scope, key").rows {
            ledger.finish(try Self.keyUse(row.first ?? nil), now: now)
        }
        return State(list: list, history: history, ledger: ledger)
    }

    /// Writes `list` as the tables' first content when they are new (revision 0, no id ever
    /// issued), as a new data folder starts with the sample trips; when two instances start
    /// together, the first to lock the state row seeds and the other finds it done.
    func seed(_ list: TripList) throws(PostgresStoreError) {
        try transaction("BEGIN") { () throws(PostgresStoreError) in
            let (revision, lastIssuedID) = try readState(locking: true)
            guard revision == 0, lastIssuedID == 0, list.lastIssuedID > 0 else { return }
            let trips = Array(list.trips)
            guard let keys = TripPositions.spread(trips.count, from: nil, to: nil) else { return }
            insertRows(trips, at: keys, versions: trips.map { list.version(of: $0.id) ?? list.revision })
            execute(
                "UPDATE trips_state SET revision = $1, last_issued_id = $2", [String(list.revision), String(list.lastIssuedID)])
        }
    }

    /// Brings `state` up to the tables' revision by replaying the changes after it, as the
    /// journal's replay does, or, when some of them were pruned, by loading everything again.
    @discardableResult
    func catchUp(_ state: inout State) throws(PostgresStoreError) -> CatchUp {
        if let replayed = try replay(query(Self.changes(after: state)).rows, onto: &state) { return .replayed(replayed) }
        state = try load(historyCapacity: state.history.capacity, ledger: IdempotencyLedger(byteLimit: state.ledger.byteLimit))
        return .reloaded
    }

    /// The changes after `state`'s revision, in order.
    private static func changes(after state: State) -> PostgresStatement {
        PostgresStatement("SELECT revision, record FROM trip_changes WHERE revision > $1 ORDER BY revision", [String(state.list.revision)])
    }

    /// Replays `rows` of `changes(after: state)`; nil, with `state` as it was, when the first
    /// change after it was pruned.
    private func replay(_ rows: [[String?]], onto state: inout State) throws(PostgresStoreError) -> Int? {
        guard let first = rows.first else { return 0 }
        guard first[0].flatMap({ UInt64($0) }) == state.list.revision + 1 else { return nil }
        for row in rows { try Self.replay(row, onto: &state) }
        return rows.count
    }

    /// Deletes what no instance needs any longer: the changes before the newest
    /// `retention.changes` (an instance further behind loads everything again), and the
    /// idempotency keys `IdempotencyLedger` would forget: used more than `retention.keySeconds`
    /// before `now`, and not among the newest `retention.keys`; or past the newest
    /// `retention.keyBytes` of them.
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
    }

    // MARK: Writing

    /// Makes `writes` in one transaction, in order, after catching `state` up; answers each
    /// one's result. A write its plan or the list refuses changes nothing, and the others go
    /// on. When the transaction fails, `state` keeps only the catching up, and the error is
    /// thrown: nothing of the writes is in the tables, unless the connection broke during
    /// `COMMIT`, when the next catching up finds out.
    func commit(_ writes: [Write], to state: inout State) throws(PostgresStoreError) -> [WriteResult] {
        let (results, working) = try transaction("BEGIN") { () throws(PostgresStoreError) in
            // The changes after ours are asked for with the lock: one round trip.
            let opening = try queries([Self.stateRow(locking: true), Self.changes(after: state)])
            let (revision, _) = try Self.revisionAndLastID(opening[0])
            guard revision >= state.list.revision else {
                throw .damaged("the tables are at revision \(revision), behind the \(state.list.revision) already read")
            }
            if revision > state.list.revision, try replay(opening[1].rows, onto: &state) == nil {
                // The state row is locked: no one else writes while everything is read again.
                state = try readAll(historyCapacity: state.history.capacity, ledger: IdempotencyLedger(byteLimit: state.ledger.byteLimit))
            }
            endKey = nil
            unwritten = ([], [], [])
            var working = state
            var results: [WriteResult] = []
            var changes: [(record: JournalRecord, event: ChangeEvent)] = []
            for write in writes {
                if let key = write.key {
                    switch working.ledger.lookup(key.key, fingerprint: key.fingerprint) {
                    case .new: break
                    case .replay(let answer):
                        results.append(.replayed(answer, list: working.list))
                        continue
                    case .conflict:
                        results.append(.refused(.idempotencyConflict))
                        continue
                    case .inFlight:
                        results.append(.refused(.idempotencyInFlight))
                        continue
                    }
                }
                let change: TripChange?
                do throws(MutationError) {
                    change = try write.plan(working.list)
                } catch {
                    results.append(.refused(error))
                    continue
                }
                guard let change else {
                    results.append(.written(Written(change: nil, outcome: nil, list: working.list, event: nil), keyUse: nil))
                    continue
                }
                let before = working.list
                let applied: (outcome: TripChangeOutcome, event: ChangeEvent?)
                do throws(TripsError) {
                    applied = try working.list.applyTelling(change)
                } catch {
                    results.append(.refused(.rejected(error)))
                    continue
                }
                let written = Written(change: change, outcome: applied.outcome, list: working.list, event: applied.event)
                let keyUse = write.keyUse?(written)
                if let event = applied.event {
                    let record = JournalRecord(revision: working.list.revision, change: change, idempotency: keyUse)
                    try writeRows(of: change, outcome: applied.outcome, from: before, to: working.list)
                    changes.append((record, event))
                    working.history.append(event)
                }
                // A key whose change changed nothing is kept in memory only, as the journal does.
                if let keyUse { working.ledger.finish(keyUse, now: keyUse.at) }
                results.append(.written(written, keyUse: keyUse))
            }
            if !changes.isEmpty {
                writeUnwrittenRows()
                append(changes)
                execute(
                    """
                    WITH updated AS (UPDATE trips_state SET revision = $1, last_issued_id = $2 RETURNING revision)
                    SELECT pg_notify($3, revision::text) FROM updated
                    """,
                    [String(working.list.revision), String(working.list.lastIssuedID), Self.channel])
            }
            return (results, working)
        }
        state = working
        return results
    }

    /// The changes' records and events in `trip_changes` (what other instances replay, and
    /// the history of the change feed), and their idempotency keys: one statement each for
    /// the whole transaction.
    private func append(_ changes: [(record: JournalRecord, event: ChangeEvent)]) {
        execute(
            "INSERT INTO trip_changes (revision, record, event, data) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])",
            [
                PostgresArrayLiteral.encode(changes.map(\.record.revision)),
                PostgresArrayLiteral.encode(changes.map { String(decoding: $0.record.payload, as: UTF8.self) }),
                PostgresArrayLiteral.encode(changes.map(\.event.name)),
                PostgresArrayLiteral.encode(changes.map { String(decoding: $0.event.data, as: UTF8.self) }),
            ])
        // A key is used once per transaction: a second use of it is a replay, never written.
        let uses = changes.compactMap(\.record.idempotency)
        guard !uses.isEmpty else { return }
        execute(
            """
            INSERT INTO trip_idempotency_keys (scope, key, use, used_at)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
            ON CONFLICT (scope, key) DO UPDATE SET use = excluded.use, used_at = excluded.used_at
            """,
            [
                PostgresArrayLiteral.encode(uses.map(\.scope)),
                PostgresArrayLiteral.encode(uses.map(\.key)),
                PostgresArrayLiteral.encode(
                    uses.map { use in
                        var writer = JSONWriter(reservingCapacity: 256)
                        writer.appendKeyUse(use)
                        return String(decoding: writer.bytes, as: UTF8.self)
                    }),
                PostgresArrayLiteral.encode(uses.map(\.at)),
            ])
    }

    /// Writes the rows `change` changed on the way from `before` to `after`.
    private func writeRows(of change: TripChange, outcome: TripChangeOutcome, from before: TripList, to after: TripList)
        throws(PostgresStoreError)
    {
        // Trips added at the end, once the end is known: their rows wait for the next statement.
        if case (.add(_, nil), .added(let trips)) = (change, outcome), let endKey,
            let keys = TripPositions.keys(trips.count, between: endKey, and: nil)
        {
            self.endKey = keys.last
            unwritten.trips += trips
            unwritten.keys += keys
            unwritten.versions += trips.map { _ in after.revision }
            return
        }
        writeUnwrittenRows()
        switch (change, outcome) {
        case (.add(_, let anchor), .added(let trips)):
            let keys = try place(trips.map(\.id), before: anchor, inTable: false)
            insertRows(trips, at: keys, versions: trips.map { _ in after.revision })
        case (.delete(let ids), _):
            execute("DELETE FROM trips WHERE id = ANY($1::bigint[])", [PostgresArrayLiteral.encode(ids)])
        case (.replace, .trip(let trip)), (.setFavorite, .trip(let trip)):
            updateRows([trip.id], of: after)
        case (.makeFavorites, .addedFavorites(let ids)):
            updateRows(ids, of: after)
        case (.move(let difference), _):
            // The moving trips keep their order, and land in front of the first trip after them.
            let block = after.inListOrder(difference.sources)
            guard let last = block.last else { return }
            var following = after.trips(after: last)?.makeIterator()
            _ = try place(block, before: following?.next()?.id, inTable: true)
        case (.sort, _):
            let ids = after.trips.map(\.id)
            guard let keys = TripPositions.spread(ids.count, from: nil, to: nil) else { throw .damaged("no keys for \(ids.count) trips") }
            setPositions(ids, keys)
        default:
            throw .damaged("change \(change) had the outcome \(outcome)")
        }
    }

    /// Gives `block` (ids in list order) keys in front of `anchor` (nil: at the end), in the
    /// gap the list without the block has there; when the gap is too narrow, spreads out a
    /// window of neighbours, four times wider each time, until it has room. Writes the keys
    /// of rows already in the table (`inTable`: the block's too), and answers the block's.
    private func place(_ block: [Trip.ID], before anchor: Trip.ID?, inTable: Bool) throws(PostgresStoreError) -> [Int64] {
        if anchor == nil, let endKey, let keys = TripPositions.keys(block.count, between: endKey, and: nil) {
            if inTable { setPositions(block, keys) }
            self.endKey = keys.last
            return keys
        }
        let excluded = PostgresArrayLiteral.encode(block)
        var high: Int64?
        if let anchor {
            guard let key = try int64(query("SELECT position FROM trips WHERE id = $1", [String(anchor)]).rows.first?[0] ?? nil) else {
                throw .damaged("trip \(anchor) has no row")
            }
            high = key
        }
        let neighboursBefore = """
            SELECT id, position FROM trips WHERE ($1::bigint IS NULL OR position < $1::bigint) AND id <> ALL($2::bigint[])
            ORDER BY position DESC LIMIT $3
            """
        let low = try int64(query(neighboursBefore, [high.map { String($0) }, excluded, "1"]).rows.first?[1] ?? nil)
        if let keys = TripPositions.keys(block.count, between: low, and: high) {
            if inTable { setPositions(block, keys) }
            if anchor == nil { endKey = keys.last }  // above every other row: the table's highest
            return keys
        }
        var reach = 16
        while true {
            let before = try positions(query(neighboursBefore, [high.map { String($0) }, excluded, String(reach)]))
            var after: [(id: Trip.ID, key: Int64)] = []
            if let high {
                after = try positions(
                    query(
                        "SELECT id, position FROM trips WHERE position >= $1 AND id <> ALL($2::bigint[]) ORDER BY position LIMIT $3",
                        [String(high), excluded, String(reach)]))
            }
            // A side with fewer neighbours than asked reaches the end of the list: keys may go past it.
            let window = before.reversed().map(\.id) + block + after.map(\.id)
            if let keys = TripPositions.spread(
                window.count, from: before.count == reach ? before.last?.key : nil, to: after.count == reach ? after.last?.key : nil)
            {
                let blockKeys = Array(keys[before.count..<before.count + block.count])
                if anchor == nil { endKey = blockKeys.last }
                if inTable {
                    setPositions(window, keys)
                } else {
                    setPositions(
                        window[..<before.count] + window[(before.count + block.count)...],
                        keys[..<before.count] + keys[(before.count + block.count)...])
                }
                return blockKeys
            }
            reach *= 4
        }
    }

    private func setPositions(_ ids: some Collection<Trip.ID>, _ keys: some Collection<Int64>) {
        guard !ids.isEmpty else { return }
        if let endKey, let highest = keys.max() { self.endKey = max(endKey, highest) }
        execute(
            "UPDATE trips SET position = k.position FROM unnest($1::bigint[], $2::bigint[]) AS k(id, position) WHERE trips.id = k.id",
            [PostgresArrayLiteral.encode(ids), PostgresArrayLiteral.encode(keys)])
    }

    private func writeUnwrittenRows() {
        guard !unwritten.trips.isEmpty else { return }
        let rows = unwritten
        unwritten = ([], [], [])
        insertRows(rows.trips, at: rows.keys, versions: rows.versions)
    }

    private func insertRows(_ trips: [Trip], at keys: [Int64], versions: [UInt64]) {
        execute(
            """
            INSERT INTO trips (id, position, version, city, country, nights, is_favorite, image_name, price, start, notes)
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::integer[],
                $7::boolean[], $8::text[], $9::numeric[], $10::double precision[], $11::text[])
            """,
            [PostgresArrayLiteral.encode(trips.map(\.id)), PostgresArrayLiteral.encode(keys)]
                + Self.columns(of: trips, versions: versions))
    }

    /// Writes every field of the trips `ids` names as `list` holds them.
    private func updateRows(_ ids: [Trip.ID], of list: TripList) {
        let trips = ids.compactMap { list[$0] }
        guard !trips.isEmpty else { return }
        execute(
            """
            UPDATE trips SET version = t.version, city = t.city, country = t.country, nights = t.nights,
                is_favorite = t.is_favorite, image_name = t.image_name, price = t.price, start = t.start, notes = t.notes
            FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::integer[], $6::boolean[], $7::text[],
                $8::numeric[], $9::double precision[], $10::text[])
                AS t(id, version, city, country, nights, is_favorite, image_name, price, start, notes)
            WHERE trips.id = t.id
            """,
            [PostgresArrayLiteral.encode(trips.map(\.id))]
                + Self.columns(of: trips, versions: trips.map { list.version(of: $0.id) ?? list.revision }))
    }

    /// The trips' fields from `version` to `notes`, each column as one array literal.
    private static func columns(of trips: [Trip], versions: [UInt64]) -> [String?] {
        [
            PostgresArrayLiteral.encode(versions),
            PostgresArrayLiteral.encode(trips.map(\.city)),
            PostgresArrayLiteral.encode(trips.map(\.country)),
            PostgresArrayLiteral.encode(trips.map(\.nights)),
            PostgresArrayLiteral.encode(trips.map { $0.isFavorite ? "true" : "false" }),
            PostgresArrayLiteral.encode(trips.map(\.imageName)),
            PostgresArrayLiteral.encode(trips.map { $0.price.description }),
            PostgresArrayLiteral.encode(trips.map { String($0.start.timeIntervalSinceReferenceDate) }),
            PostgresArrayLiteral.encode(trips.map(\.notes)),
        ]
    }

    // MARK: Statements

    /// The list's revision and the highest id issued; `locking` holds the row until the
    /// transaction ends, so writers take turns.
    private func readState(locking: Bool) throws(PostgresStoreError) -> (revision: UInt64, lastIssuedID: UInt64) {
        try Self.revisionAndLastID(query(Self.stateRow(locking: locking)))
    }

    private static func stateRow(locking: Bool) -> PostgresStatement {
        PostgresStatement(
            locking ? "SELECT revision, last_issued_id FROM trips_state FOR UPDATE" : "SELECT revision, last_issued_id FROM trips_state")
    }

    private static func revisionAndLastID(_ result: PostgresRows) throws(PostgresStoreError) -> (revision: UInt64, lastIssuedID: UInt64) {
        let rows = result.rows
        guard rows.count == 1, let revision = rows[0][0].flatMap({ UInt64($0) }), let last = rows[0][1].flatMap({ UInt64($0) }) else {
            throw .damaged("trips_state does not hold one row")
        }
        return (revision, last)
    }

    private func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresStoreError) -> PostgresRows {
        try query(PostgresStatement(sql, parameters))
    }

    private func query(_ statement: PostgresStatement) throws(PostgresStoreError) -> PostgresRows {
        try queries([statement])[0]
    }

    /// Runs the queued statements and then `statements` in one round trip; answers the
    /// latter's results.
    private func queries(_ statements: [PostgresStatement]) throws(PostgresStoreError) -> [PostgresRows] {
        var sending: [PostgresStatement] = []
        swap(&sending, &queued)
        sending += statements
        do {
            return Array(try connection.pipeline(sending).suffix(statements.count))
        } catch {
            throw .database(error)
        }
    }

    /// Queues a statement whose answer nothing needs: it runs before the next query, or with
    /// `COMMIT` (`flush` sends it now).
    private func execute(_ sql: String, _ parameters: [String?] = []) {
        queued.append(PostgresStatement(sql, parameters))
    }

    /// Runs the statements queued.
    private func flush() throws(PostgresStoreError) {
        _ = try queries([])
    }

    /// Runs `body` between `begin` and `COMMIT`, both sent with other statements (`execute`);
    /// rolls back when it throws.
    private func transaction<Value>(_ begin: String, _ body: () throws(PostgresStoreError) -> Value) throws(PostgresStoreError) -> Value {
        queued = [PostgresStatement(begin)]
        do throws(PostgresStoreError) {
            let value = try body()
            execute("COMMIT")
            try flush()
            return value
        } catch {
            queued = []
            // Already failing; the error says why.
            if connection.isOpen, connection.transactionStatus != .idle { _ = try? connection.simpleQuery("ROLLBACK") }
            throw error
        }
    }

    // MARK: Reading rows

    /// A position column's value; nil for NULL (no row).
    private func int64(_ text: String?) throws(PostgresStoreError) -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text) else { throw .damaged("\(text) is not a position") }
        return value
    }

    private func positions(_ rows: PostgresRows) throws(PostgresStoreError) -> [(id: Trip.ID, key: Int64)] {
        try rows.rows.map { (row) throws(PostgresStoreError) in
            guard let id = row[0].flatMap({ Int($0) }), let key = row[1].flatMap({ Int64($0) }) else {
                throw .damaged("a position row reads \(row)")
            }
            return (id, key)
        }
    }

    /// A `trips` row: id, version, city, country, nights, is_favorite, image_name, price, start, notes.
    private static func trip(_ row: [String?]) throws(PostgresStoreError) -> (Trip, UInt64) {
        guard row.count == 10, let id = row[0].flatMap({ Int($0) }), let version = row[1].flatMap({ UInt64($0) }),
            let city = row[2], let country = row[3], let nights = row[4].flatMap({ Int($0) }),
            let isFavorite = row[5].flatMap({ $0 == "t" ? true : $0 == "f" ? false : nil }), let imageName = row[6],
            let price = row[7].flatMap({ Decimal(string: $0, locale: nil) }), let start = row[8].flatMap({ Double($0) }),
            let notes = row[9]
        else { throw .damaged("a trips row reads \(row)") }
        let trip = Trip(
            id: id, city: city, country: country, nights: nights, isFavorite: isFavorite, imageName: imageName, price: price,
            start: Date(timeIntervalSinceReferenceDate: start), notes: notes)
        return (trip, version)
    }

    /// A `trip_changes` row's revision, event and data.
    private static func event(_ row: [String?]) throws(PostgresStoreError) -> ChangeEvent {
        guard row.count == 3, let revision = row[0].flatMap({ UInt64($0) }), let name = row[1], let data = row[2] else {
            throw .damaged("a trip_changes row reads \(row)")
        }
        return ChangeEvent(revision: revision, name: name, data: Array(data.utf8))
    }

    private static func keyUse(_ text: String?) throws(PostgresStoreError) -> IdempotencyKeyUse {
        do throws(StoredJSONError) {
            guard let text else { throw StoredJSONError(reason: "it is NULL") }
            var object = try StoredObject(parsing: Array(text.utf8), describing: "an idempotency key")
            return try StoredObject.keyUse(object.takeRest())
        } catch {
            throw .damaged("an idempotency key: \(error)")
        }
    }

    /// Applies a `trip_changes` row (revision, record) as the journal's replay does.
    private static func replay(_ row: [String?], onto state: inout State) throws(PostgresStoreError) {
        guard row.count == 2, let revision = row[0].flatMap({ UInt64($0) }), let text = row[1] else {
            throw .damaged("a trip_changes row reads \(row)")
        }
        let record: JournalRecord
        do {
            record = try JournalRecord(payload: Array(text.utf8))
        } catch {
            throw .damaged("change \(revision): \(error)")
        }
        guard record.revision == revision, revision == state.list.revision + 1 else {
            throw .damaged("change \(revision) follows \(state.list.revision)")
        }
        let event: ChangeEvent?
        do throws(TripsError) {
            event = try state.list.applyTelling(record.change).event
        } catch {
            throw .damaged("change \(revision) no longer applies: \(error)")
        }
        guard let event, state.list.revision == revision else {
            throw .damaged("change \(revision) does not lead to revision \(revision)")
        }
        state.history.append(event)
        if let use = record.idempotency { state.ledger.finish(use, now: use.at) }
    }
}
