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
    /// `caughtUp` is handed `state` and its steps as soon as it holds what other instances
    /// committed (when it needed any), before this transaction's own changes are planned: those
    /// changes are committed already, so the store publishes them at once, and they reach its
    /// feed without waiting for this transaction's writes and flush. `steps` starts anew after it.
    ///
    /// The transaction's session is named after the first request's trace context
    /// (`lockingStateRow(naming:)`). Once it commits, `timing` says how long each of its phases
    /// took, and how many changes it made and replayed.
    ///
    /// A batch of lone appends, new trips at the end that read nothing of the list, is made in an
    /// append transaction instead (`commitAppends`), without latecomers; `caughtUp` is handed
    /// the other instances' changes before it while PostgreSQL writes it.
    package func commit(
        _ requests: [ChangeRequest], joinedBy latecomers: () -> [ChangeRequest] = { [] }, to state: inout State,
        caughtUp: (inout State, [Step]?) -> Void = { _, _ in }
    ) throws(PostgresStoreError) -> [PlannedChange] {
        let traceparent = requests.lazy.compactMap(\.traceparent).first
        let start = SystemClock().now()
        if let appends = Appends(planning: requests) {
            do throws(PostgresStoreError) {
                return try commitAppends(appends, plannedFrom: start, naming: traceparent, to: &state, caughtUp: caughtUp)
            } catch {
                // A statement refused committed nothing, and the connection is in step: made below.
                guard case .database(.server(let refusal)) = error, !refusal.endsSession else { throw error }
            }
        }
        steps = []
        timing = nil
        var phases = WriteTransactionTiming(at: start)
        let results = try transaction("BEGIN") { () throws(PostgresStoreError) in
            // The changes after ours are asked for with the lock: one round trip (each statement
            // after the lock sees what the last writer committed).
            let seen = state.list.revision
            // Replayed as they are read; held as the lock wait in the timing, which ends after.
            var replay = Replay()
            let opening = try queries([Self.lockingStateRow(naming: traceparent), Self.changes(after: state)]) { row in
                replay.take(row, onto: &state, steps: &steps)
            }
            phases.endPhase(at: SystemClock().now())
            let (revision, _) = try Self.revisionAndLastID(opening[0])
            guard revision >= seen else {
                throw .damaged("the tables are at revision \(revision), behind the \(seen) already read")
            }
            if try replay.count() == nil {
                // The state row is locked: no one else writes while everything is read again.
                state = try readAll(historyCapacity: state.history.capacity, ledger: IdempotencyLedger(byteLimit: state.ledger.byteLimit))
                steps = nil
            }
            // Caught up exactly to the locked row, replayed or read again (a server that hands
            // over more or fewer changes than the row counts is not followed).
            guard state.list.revision == revision else {
                throw .damaged("the locked state row says revision \(revision), the tables \(state.list.revision)")
            }
            if revision > seen {
                caughtUp(&state, steps)
                steps = []
            }
            phases.replayed = Int(revision - seen)
            phases.endPhase(at: SystemClock().now())
            if state.keys == nil {
                let read = try readKeys(of: state.list)
                state.keys = read
                steps?.append(.keysRead(read))
            }
            // Taken out while it changes, so that no page of it is copied for a second holder.
            var keys = state.keys.take() ?? TripPositionKeys()
            var rows = PendingTripRows()
            var results: [PlannedChange] = []
            var changes: [(entry: PlannedChange.Entry, keys: TripPositionKeys.Assignment?)] = []
            for request in requests + latecomers() {
                let planned = ChangePlanner.plan(request, on: &state.list, ledger: &state.ledger)
                if let entry = planned.entry {
                    if let photo = entry.photo { insertPhoto(photo) }
                    let given = try Self.rows(of: entry.record.change, outcome: entry.outcome, in: state.list, keys: &keys, into: &rows)
                    // A sort gives every trip a key: other instances read them from the table.
                    let isSort = if case .sort = entry.record.change { true } else { false }
                    changes.append((entry, isSort ? nil : given))
                    // Durable once the transaction commits; the caller drops `state` otherwise.
                    entry.settle(history: &state.history, ledger: &state.ledger)
                    steps?.append(.change(entry.record, entry.event, keys: given, outcome: entry.outcome))
                } else if let use = planned.keptUse {
                    steps?.append(.keyKept(use))
                }
                results.append(planned)
            }
            state.keys = keys
            if !changes.isEmpty {
                try write(rows, of: state.list, keys: keys)
                append(changes)
                execute(
                    """
                    WITH updated AS (UPDATE trips_state SET revision = $1, last_issued_id = $2 RETURNING revision)
                    SELECT pg_notify($3, revision::text) FROM updated
                    """,
                    [String(state.list.revision), String(state.list.lastIssuedID), Self.channel], prepared: true)
            }
            phases.changes = changes.count
            phases.endPhase(at: SystemClock().now())
            return results
        }
        phases.endPhase(at: SystemClock().now())
        timing = phases
        return results
    }

    /// The changes' records, events and the position keys they gave (nil: a sort's, which
    /// other instances give again) in `trip_changes` (what other instances replay, and the
    /// history of the change feed), and their idempotency keys: one statement each for the
    /// whole transaction.
    package func append(_ changes: [(entry: PlannedChange.Entry, keys: TripPositionKeys.Assignment?)]) {
        execute(
            """
            INSERT INTO trip_changes (revision, record, event, data, positions)
            SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
            """,
            Self.changeColumns(changes), prepared: true)
        // A key is used once per transaction, a second use being a replay, never written;
        // unless the ledger forgot the first at once (`--idempotency-bytes` below one use): then
        // the last is written, as the same key twice in one upsert is refused (and the whole
        // transaction with it).
        let uses = Self.lastUseOfEachKey(changes.compactMap(\.entry.record.idempotency))
        guard !uses.isEmpty else { return }
        execute(
            """
            INSERT INTO trip_idempotency_keys (scope, key, use, used_at)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
            ON CONFLICT (scope, key) DO UPDATE SET use = excluded.use, used_at = excluded.used_at
            """,
            Self.keyUseColumns(uses), prepared: true)
    }

    /// `uses` without any but the last use of each key, in order.
    static func lastUseOfEachKey(_ uses: [IdempotencyKeyUse]) -> [IdempotencyKeyUse] {
        guard uses.count > 1 else { return uses }
        var last: [IdempotencyLedger.Key: Int] = [:]
        for (index, use) in uses.enumerated() { last[use.ledgerKey] = index }
        return uses.indices.filter { last[uses[$0].ledgerKey] == $0 }.map { uses[$0] }
    }

    /// The changes' revisions, records, event names, events and position keys, each column
    /// as one array: an array literal, or, for the records and events (JSON this process
    /// wrote), a binary `text[]` (`PostgresParameters.appendArray(count:utf8:)`).
    static func changeColumns(_ changes: [(entry: PlannedChange.Entry, keys: TripPositionKeys.Assignment?)]) -> PostgresParameters {
        var columns = PostgresParameters()
        columns.appendArray(changes.map(\.entry.record.revision))
        columns.appendArray(count: changes.count, utf8: { changes[$0].entry.record.payload })
        columns.appendArray(count: changes.count) { changes[$0].entry.event.name }
        columns.appendArray(count: changes.count, utf8: { changes[$0].entry.event.data })
        columns.appendArray(count: changes.count) { changes[$0].keys?.text }
        return columns
    }

    /// The idempotency keys' scopes, keys, uses (as JSON, a binary `text[]`) and times, each
    /// column as one array.
    static func keyUseColumns(_ uses: [IdempotencyKeyUse]) -> PostgresParameters {
        var columns = PostgresParameters()
        columns.appendArray(count: uses.count) { uses[$0].scope }
        columns.appendArray(count: uses.count) { uses[$0].key }
        columns.appendArray(
            count: uses.count,
            utf8: { index in
                var writer = JSONWriter(reservingCapacity: 256)
                writer.appendKeyUse(uses[index])
                return writer.bytes
            })
        columns.appendArray(uses.map(\.at))
        return columns
    }

    /// Gathers into `rows` the rows `change` changed, which left the list as `list`, and gives
    /// the trips it placed keys (`keys` changed in place); answers the keys given.
    package static func rows(
        of change: TripChange, outcome: TripChangeOutcome, in list: TripList, keys: inout TripPositionKeys,
        into rows: inout PendingTripRows
    ) throws(PostgresStoreError) -> TripPositionKeys.Assignment {
        var given = TripPositionKeys.Assignment()
        switch (change, outcome) {
        case (.add, .added(let trips)):
            rows.add(trips.map(\.id))
            given = try keys.place(trips.map(\.id), in: list)
        case (.delete(let ids), _):
            rows.delete(ids)
            keys.remove(ids)
        case (.replace, .trip(let trip)), (.setFavorite, .trip(let trip)), (.setPhoto, .trip(let trip)):
            rows.change([trip.id])
        case (.makeFavorites, .addedFavorites(let ids)):
            rows.change(ids)
        case (.move(let difference), _):
            // The moving trips keep their order, and land in front of the first trip after them.
            given = try keys.place(list.inListOrder(difference.sources), in: list)
        case (.sort, _):
            given = try TripPositionKeys.spreadAll(list)
        default:
            throw .damaged("change \(change) had the outcome \(outcome)")
        }
        keys.apply(given)
        rows.place(given.ids)
        return given
    }

    /// Writes `rows` as `list` and `keys` have them, a statement per kind: the trips added, those
    /// changed (every column, the position too), those only moved (the position), those deleted.
    package func write(_ rows: PendingTripRows, of list: TripList, keys: TripPositionKeys) throws(PostgresStoreError) {
        let versions = { (trips: [Trip]) in trips.map { list.version(of: $0.id) ?? list.revision } }
        let added = rows.added.compactMap { list[$0] }
        if !added.isEmpty { insertRows(added, at: try keys.keys(of: added.map(\.id)), versions: versions(added)) }
        let changed = rows.changed.compactMap { list[$0] }
        if !changed.isEmpty { updateRows(changed, at: try keys.keys(of: changed.map(\.id)), versions: versions(changed)) }
        let moved = rows.moved.filter(list.contains)
        if !moved.isEmpty {
            var columns = PostgresParameters()
            columns.appendArray(moved)
            columns.appendArray(try keys.keys(of: moved))
            execute(
                "UPDATE trips SET position = k.position FROM unnest($1::bigint[], $2::bigint[]) AS k(id, position) WHERE trips.id = k.id",
                columns, prepared: true)
        }
        if !rows.deleted.isEmpty {
            var ids = PostgresParameters()
            ids.appendArray(rows.deleted)
            execute("DELETE FROM trips WHERE id = ANY($1::bigint[])", ids, prepared: true)
        }
    }

    /// Every trip's position key, as the table holds them now: for a state whose keys are not
    /// known (`State.keys`), with the state row locked. A row of a trip `list` lacks is damage
    /// (and would cost a page of the keys' table for nothing).
    package func readKeys(of list: TripList) throws(PostgresStoreError) -> TripPositionKeys {
        var rows: [(id: Trip.ID, key: Int64)] = []
        try forEachRow(of: PostgresStatement("SELECT id, position FROM trips", prepared: true)) { (row) throws(PostgresStoreError) in
            rows.append(try Self.position(row))
        }
        if let stray = rows.first(where: { !list.contains($0.id) }) {
            throw .damaged("a position row names trip \(stray.id), which the list lacks")
        }
        return TripPositionKeys(rows)
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
            Self.columns(of: trips, at: keys, versions: versions), prepared: true)
    }

    /// Writes every column of `trips`' rows: their fields, `versions` and position `keys`.
    package func updateRows(_ trips: [Trip], at keys: [Int64], versions: [UInt64]) {
        execute(
            """
            UPDATE trips SET position = t.position, version = t.version, city = t.city, country = t.country, nights = t.nights,
                is_favorite = t.is_favorite, image_name = t.image_name, price = t.price, start = t.start, notes = t.notes,
                photo_digest = t.photo_digest
            FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::integer[], $7::boolean[],
                $8::text[], $9::numeric[], $10::double precision[], $11::text[], $12::text[])
                AS t(id, position, version, city, country, nights, is_favorite, image_name, price, start, notes, photo_digest)
            WHERE trips.id = t.id
            """,
            Self.columns(of: trips, at: keys, versions: versions), prepared: true)
    }

    /// The trips' ids, position `keys`, `versions`, fields from `city` to `notes` and their
    /// photos' digests, each column as one array literal written straight into the parameters.
    package static func columns(of trips: [Trip], at keys: [Int64], versions: [UInt64]) -> PostgresParameters {
        var columns = PostgresParameters()
        columns.appendArray(count: trips.count) { trips[$0].id }
        columns.appendArray(keys)
        columns.appendArray(versions)
        appendFieldColumns(of: trips, to: &columns)
        columns.appendArray(count: trips.count) { trips[$0].photo?.digest }
        return columns
    }

    /// The trips' fields from `city` to `notes`, each column as one array literal.
    static func appendFieldColumns(of trips: [Trip], to columns: inout PostgresParameters) {
        columns.appendArray(count: trips.count) { trips[$0].city }
        columns.appendArray(count: trips.count) { trips[$0].country }
        columns.appendArray(count: trips.count) { trips[$0].nights }
        columns.appendArray(count: trips.count) { trips[$0].isFavorite ? "true" : "false" }
        columns.appendArray(count: trips.count) { trips[$0].imageName }
        columns.appendArray(count: trips.count) { trips[$0].exactPrice.digits }
        columns.appendArray(count: trips.count) { String(trips[$0].start.timeIntervalSinceReferenceDate) }
        columns.appendArray(count: trips.count) { trips[$0].notes }
    }
}
