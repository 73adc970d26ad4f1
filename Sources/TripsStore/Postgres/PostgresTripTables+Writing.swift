import Foundation
import TripsDomain
import TripsFormats
import TripsPlatform
import TripsPostgres

/// Writing: a batch of changes in one transaction, and the rows each change touches.
extension PostgresTripTables {
    /// Plans and makes `requests` in one transaction, in order, after catching `state` up,
    /// as `ChangePlanner` plans them against the tables' newest list (so a precondition such
    /// as `If-Match` holds inside the transaction); answers each one's plan. A request its plan
    /// or the list refuses changes nothing, and the others go on.
    ///
    /// `state` is changed in place, and `steps` says how, for the store's other copy: what a
    /// transaction costs grows with its changes, not with the list or the history. When the
    /// transaction fails, the error is thrown and `state` may hold changes the tables do not:
    /// the caller replaces it with a copy of what committed. Nothing of the requests is in the
    /// tables then, unless the connection broke during `COMMIT`, when the next catching up
    /// finds out.
    ///
    /// `latecomers` is asked once the lock is held, for the changes that arrived while the
    /// transaction waited for it: they are planned after `requests`, in the same transaction.
    /// The wait is the other writers' transactions, so under load each transaction takes what
    /// came in during the last one, rather than the few that had arrived when it began.
    ///
    /// The transaction's session is named after the first request's trace context
    /// (`tagTransaction`).
    package func commit(
        _ requests: [ChangeRequest], joinedBy latecomers: () -> [ChangeRequest] = { [] }, to state: inout State
    ) throws(PostgresStoreError) -> [PlannedChange] {
        steps = []
        return try transaction("BEGIN") { () throws(PostgresStoreError) in
            tagTransaction(with: requests.lazy.compactMap(\.traceparent).first)
            // The changes after ours, and the end of the list, are asked for with the lock: one
            // round trip (each statement after the lock sees what the last writer committed).
            let opening = try queries([
                Self.stateRow(locking: true), Self.changes(after: state),
                PostgresStatement("SELECT max(position) FROM trips", prepared: true),
            ])
            let (revision, _) = try Self.revisionAndLastID(opening[0])
            guard revision >= state.list.revision else {
                throw .damaged("the tables are at revision \(revision), behind the \(state.list.revision) already read")
            }
            if revision > state.list.revision, try replay(opening[1].rows, onto: &state) == nil {
                // The state row is locked: no one else writes while everything is read again.
                state = try readAll(historyCapacity: state.history.capacity, ledger: IdempotencyLedger(byteLimit: state.ledger.byteLimit))
                steps = nil
            }
            endKey = try int64(opening[2].rows.first?[0] ?? nil)
            unwritten = ([], [], [])
            var results: [PlannedChange] = []
            var changes: [PlannedChange.Entry] = []
            for request in requests + latecomers() {
                let planned = ChangePlanner.plan(request, on: &state.list, ledger: &state.ledger)
                if let entry = planned.entry {
                    if let photo = entry.photo { insertPhoto(photo) }
                    try writeRows(of: entry.record.change, outcome: entry.outcome, to: state.list)
                    changes.append(entry)
                    // Durable once the transaction commits; the caller drops `state` otherwise.
                    entry.settle(history: &state.history, ledger: &state.ledger)
                    steps?.append(.change(entry.record, entry.event))
                } else if let use = planned.keptUse {
                    steps?.append(.keyKept(use))
                }
                results.append(planned)
            }
            if !changes.isEmpty {
                writeUnwrittenRows()
                append(changes)
                execute(
                    """
                    WITH updated AS (UPDATE trips_state SET revision = $1, last_issued_id = $2 RETURNING revision)
                    SELECT pg_notify($3, revision::text) FROM updated
                    """,
                    [String(state.list.revision), String(state.list.lastIssuedID), Self.channel], prepared: true)
            }
            return results
        }
    }

    /// Names the session after `traceparent` until the transaction ends (`application_name`,
    /// set local: the connection's own name returns at `COMMIT` or `ROLLBACK`), so that
    /// `pg_stat_activity`, and a statement log with `%a` in `log_line_prefix`, show which
    /// request's transaction a slow or waiting statement is in, for each of its statements.
    /// (A comment on the first statement would name that one only, and be SQL built from a
    /// request's data; this is a bound parameter, sent in the same round trip as `BEGIN`.)
    ///
    /// A transaction that makes the changes of several requests at once carries the first
    /// one's: the oldest waiting, whose request waited for the whole transaction, and each
    /// later one's access log line names its own trace. 55 characters: within the 63 bytes a
    /// name may have.
    func tagTransaction(with traceparent: String?) {
        guard let traceparent else { return }
        execute("SELECT set_config('application_name', $1, true)", [traceparent], prepared: true)
    }

    /// The changes' records and events in `trip_changes` (what other instances replay, and
    /// the history of the change feed), and their idempotency keys: one statement each for
    /// the whole transaction.
    package func append(_ changes: [PlannedChange.Entry]) {
        execute(
            "INSERT INTO trip_changes (revision, record, event, data) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])",
            [
                PostgresArrayLiteral.encode(changes.map(\.record.revision)),
                PostgresArrayLiteral.encode(changes.map { String(decoding: $0.record.payload, as: UTF8.self) }),
                PostgresArrayLiteral.encode(changes.map(\.event.name)),
                PostgresArrayLiteral.encode(changes.map { String(decoding: $0.event.data, as: UTF8.self) }),
            ], prepared: true)
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
            ], prepared: true)
    }

    /// Writes the rows `change` changed, which left the list as `after`.
    package func writeRows(of change: TripChange, outcome: TripChangeOutcome, to after: TripList) throws(PostgresStoreError) {
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
            execute("DELETE FROM trips WHERE id = ANY($1::bigint[])", [PostgresArrayLiteral.encode(ids)], prepared: true)
        case (.replace, .trip(let trip)), (.setFavorite, .trip(let trip)), (.setPhoto, .trip(let trip)):
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
    package func place(_ block: [Trip.ID], before anchor: Trip.ID?, inTable: Bool) throws(PostgresStoreError) -> [Int64] {
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
        // Not prepared: planned with its values, `$1 IS NULL` folds away and the scan starts at
        // the anchor; a generic plan would read the list backwards from its end (30 ms for an
        // anchor near the start of 100,000 trips).
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

    package func setPositions(_ ids: some Collection<Trip.ID>, _ keys: some Collection<Int64>) {
        guard !ids.isEmpty else { return }
        if let endKey, let highest = keys.max() { self.endKey = max(endKey, highest) }
        execute(
            "UPDATE trips SET position = k.position FROM unnest($1::bigint[], $2::bigint[]) AS k(id, position) WHERE trips.id = k.id",
            [PostgresArrayLiteral.encode(ids), PostgresArrayLiteral.encode(keys)], prepared: true)
    }

    package func writeUnwrittenRows() {
        guard !unwritten.trips.isEmpty else { return }
        let rows = unwritten
        unwritten = ([], [], [])
        insertRows(rows.trips, at: rows.keys, versions: rows.versions)
    }

    /// The photo's row, unless it is there already (another trip has the photo, or had it
    /// and the row is not pruned yet): in the transaction of the change that sets it, and
    /// before the trip's row refers to it.
    package func insertPhoto(_ photo: PhotoBytes) {
        execute(
            """
            INSERT INTO trip_photos (digest, type, width, height, bytes) VALUES ($1, $2, $3::integer, $4::integer, decode($5, 'hex'))
            ON CONFLICT (digest) DO NOTHING
            """,
            [
                photo.photo.digest, photo.photo.format.mediaType.description, String(photo.photo.width), String(photo.photo.height),
                Hexadecimal.encode(photo.bytes),
            ], prepared: true)
    }

    package func insertRows(_ trips: [Trip], at keys: [Int64], versions: [UInt64]) {
        execute(
            """
            INSERT INTO trips (id, position, version, city, country, nights, is_favorite, image_name, price, start, notes, photo_digest)
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::integer[],
                $7::boolean[], $8::text[], $9::numeric[], $10::double precision[], $11::text[], $12::text[])
            """,
            [PostgresArrayLiteral.encode(trips.map(\.id)), PostgresArrayLiteral.encode(keys)]
                + Self.columns(of: trips, versions: versions), prepared: true)
    }

    /// Writes every field of the trips `ids` names as `list` holds them.
    package func updateRows(_ ids: [Trip.ID], of list: TripList) {
        let trips = ids.compactMap { list[$0] }
        guard !trips.isEmpty else { return }
        execute(
            """
            UPDATE trips SET version = t.version, city = t.city, country = t.country, nights = t.nights,
                is_favorite = t.is_favorite, image_name = t.image_name, price = t.price, start = t.start, notes = t.notes,
                photo_digest = t.photo_digest
            FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::integer[], $6::boolean[], $7::text[],
                $8::numeric[], $9::double precision[], $10::text[], $11::text[])
                AS t(id, version, city, country, nights, is_favorite, image_name, price, start, notes, photo_digest)
            WHERE trips.id = t.id
            """,
            [PostgresArrayLiteral.encode(trips.map(\.id))]
                + Self.columns(of: trips, versions: trips.map { list.version(of: $0.id) ?? list.revision }), prepared: true)
    }

    /// The trips' fields from `version` to `notes`, and their photos' digests, each column as
    /// one array literal.
    package static func columns(of trips: [Trip], versions: [UInt64]) -> [String?] {
        [
            PostgresArrayLiteral.encode(versions),
            PostgresArrayLiteral.encode(trips.map(\.city)),
            PostgresArrayLiteral.encode(trips.map(\.country)),
            PostgresArrayLiteral.encode(trips.map(\.nights)),
            PostgresArrayLiteral.encode(trips.map { $0.isFavorite ? "true" : "false" }),
            PostgresArrayLiteral.encode(trips.map(\.imageName)),
            PostgresArrayLiteral.encode(trips.map(\.exactPrice.digits)),
            PostgresArrayLiteral.encode(trips.map { String($0.start.timeIntervalSinceReferenceDate) }),
            PostgresArrayLiteral.encode(trips.map(\.notes)),
            PostgresArrayLiteral.encode(trips.map(\.photo?.digest)),
        ]
    }
}
