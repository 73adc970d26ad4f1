import TripsDomain
import TripsFormats
import TripsPlatform
import TripsPostgres

/// Append transactions: new trips at the end, none with a precondition, written in one round
/// trip during which PostgreSQL alone holds the lock that orders the writers.
///
/// The present path (`commit`) holds the state row's lock while this process catches up, plans
/// and writes: a round trip and two wake-ups of ours inside every other writer's wait. A create
/// that reads nothing of the list (`ChangeRequest.readsNoList`) needs none of it. It is planned
/// before the lock, without the list (`Appends`), into everything its rows hold but its
/// revision, id and position key, which the database fills in from the locked row. One
/// pipeline, sent at once:
///
/// 1. `BEGIN`; the state row's revision and last id moved on by the batch's size (`allocate`:
///    this waits for the lock, and answers where the batch starts);
/// 2. the changes other instances made between this instance's revision and the batch's start,
///    sent at once (a Flush after them): replayed and handed to the feed while PostgreSQL
///    writes the batch;
/// 3. the trips' rows and their changes' rows, the numbers spliced in from the state row and the
///    list's last key (`max(position)`, read once the lock is held, so the newest): revisions
///    and ids one after another, each key `TripPositions.spacing` past the one before, as
///    `TripPositionKeys.place` gives at the end;
/// 4. `COMMIT`.
///
/// Then the batch's own changes are redone on `state` with the numbers the database gave, as
/// any other instance replays them. Revisions stay one order with no gap:
/// each comes from the locked row, in the transaction that writes the change.
extension PostgresTripTables {
    /// A batch whose every request is a lone append, planned without the store's list
    /// (`ChangePlanner.planAppend`).
    package struct Appends {
        /// Each request's refusal, or nil for one whose trip the transaction adds: the nils
        /// and `added` go in the same order.
        fileprivate var refusals: [PlannedChange?] = []
        /// The trips added, in order.
        fileprivate var added: [Added] = []

        /// One trip added, as planned: what its rows hold but the numbers the database gives.
        fileprivate struct Added {
            let draft: TripDraft
            /// The trip, under id 1: its fields for the row.
            let trip: Trip
            /// Its record's payload after `{"revision":N`.
            let recordTail: [UInt8]
            /// Its event's data after `{"revision":N,"trips":[{"id":I`.
            let eventTail: [UInt8]
            /// How many bytes of the event follow the trip's JSON object.
            let afterTripObject: Int?
        }

        /// Plans `requests`; nil when one is not a lone append: its plan may read the list, it
        /// has an idempotency key or answers with the list, or its change is other than one
        /// trip at the end. Each trip is made under id 1 and its change written at revision 1,
        /// the numbers the tails leave out.
        package init?(planning requests: [ChangeRequest]) {
            refusals.reserveCapacity(requests.count)
            for request in requests {
                guard request.readsNoList, request.idempotency == nil, !request.returningList,
                    let plan = ChangePlanner.planAppend(request)
                else { return nil }
                switch plan {
                case .failure(let refusal):
                    refusals.append(PlannedChange(result: .failure(refusal), entry: nil))
                case .success(let (draft, trip)):
                    let change = TripChange.add([draft], before: nil)
                    guard let event = ChangeEvent(change, outcome: .added([trip]), list: Self.atRevisionOne, previousRevision: 0),
                        let recordTail = Self.tail(of: JournalRecord(revision: 1, change: change).payload, after: Self.recordHead),
                        let eventTail = Self.tail(of: event.data, after: Self.eventHead)
                    else { return nil }
                    added.append(
                        Added(
                            draft: draft, trip: trip, recordTail: recordTail, eventTail: eventTail,
                            afterTripObject: event.tripObject.map { event.data.count - $0.upperBound }))
                    refusals.append(nil)
                }
            }
        }

        /// The list a planned change's event is written against: only its revision is read.
        private static let atRevisionOne = TripList(revision: 1)
        /// What a planned change's record and event open with: the numbers the tails leave out.
        private static let recordHead = Array(#"{"revision":1"#.utf8)
        private static let eventHead = Array(#"{"revision":1,"trips":[{"id":1"#.utf8)

        /// What follows `prefix` in `bytes`; nil when they do not open with it.
        private static func tail(of bytes: [UInt8], after prefix: [UInt8]) -> [UInt8]? {
            guard bytes.starts(with: prefix) else { return nil }
            return Array(bytes[prefix.count...])
        }
    }

    /// Makes `appends` in one append transaction, and brings `state` to the batch's last
    /// revision: other instances' changes before the batch replayed (and handed to `caughtUp`,
    /// as `commit` does, as soon as they are read: while PostgreSQL writes the batch), the
    /// batch's own redone with the revisions, ids and keys the database gave. Answers each
    /// request's plan; `steps` and `timing` say what it did, as `commit`'s do (`start`: when
    /// the planning began).
    ///
    /// A refused statement (`.database(.server)`, the connection in step) committed nothing:
    /// the present path makes the batch then (a key past the end of `bigint`, say, which it
    /// spreads). Once committed, a failure to bring `state` along is `.damaged`, or
    /// `.commitOutcomeUnknown` when the database failed, never an error the caller makes the
    /// batch again for.
    package func commitAppends(
        _ appends: Appends, plannedFrom start: MonotonicInstant, naming traceparent: String?, to state: inout State,
        caughtUp: (inout State, [Step]?) -> Void
    ) throws(PostgresStoreError) -> [PlannedChange] {
        steps = []
        timing = nil
        let count = appends.added.count
        guard count > 0 else { return appends.refusals.compactMap { $0 } }
        var statements = [PostgresStatement("BEGIN", prepared: true)]
        if let traceparent { statements.append(Self.naming(traceparent)) }
        statements += [
            Self.allocate(count), Self.changes(after: state, beforeTheLast: count), Self.insert(appends.added),
            PostgresStatement("COMMIT", prepared: true),
        ]
        let changesRead = statements.count - 3
        var phases = WriteTransactionTiming(at: start)
        phases.isAppends = true
        let seen = state.list.revision
        let sent = SystemClock().now()
        phases.add(.plan, from: start, to: sent)
        // The revision the changes before the batch brought `state` to; nil when the first was pruned.
        var caughtUpTo: Result<UInt64?, PostgresStoreError> = .success(nil)
        // From the first of those changes read to their last replayed and handed over.
        var replaying: (start: MonotonicInstant?, end: MonotonicInstant) = (nil, sent)
        var replay = Replay()
        let answers: [PostgresRows]
        do {
            answers = try runCommitting(
                statements, eachRowOf: changesRead,
                { row in
                    if replaying.start == nil { replaying.start = SystemClock().now() }
                    replay.take(row, onto: &state, steps: &steps)
                }
            ) { answered in
                if replaying.start == nil { replaying.start = SystemClock().now() }
                caughtUpTo = Result { () throws(PostgresStoreError) -> UInt64? in
                    let (base, _) = try Self.revisionAndLastID(answered[changesRead - 1])
                    guard try replay.count() != nil else { return nil }
                    guard state.list.revision == base else {
                        throw .damaged(
                            "the append transaction began at revision \(base), the changes before it lead to \(state.list.revision)")
                    }
                    if base > seen {
                        caughtUp(&state, steps)
                        steps = []
                    }
                    return base
                }
                replaying.end = SystemClock().now()
            }
        } catch {
            // Changes replayed in part leave `state` damaged: the present path must not write on it.
            if case .failure(let damage) = caughtUpTo { throw damage }
            throw error
        }
        let committed = SystemClock().now()
        let replayBegan = replaying.start ?? replaying.end
        phases.add(.lock, from: sent, to: replayBegan)
        phases.add(.catchUp, from: replayBegan, to: replaying.end)
        phases.add(.commit, from: replaying.end, to: committed)

        let (base, lastID) = try Self.revisionAndLastID(answers[changesRead - 1])
        guard base >= seen else {
            throw .damaged("the append transaction began at revision \(base), behind the \(seen) already read")
        }
        let keyRows = answers[changesRead + 1].rows
        guard keyRows.count == 1, keyRows[0].count == 1, let position = keyRows[0][0].flatMap({ Int64($0) }) else {
            throw .damaged("the append transaction's last key does not read")
        }
        let made = try Self.made(appends.added, after: base, lastID: lastID, lastKey: position)
        // Each request its refusal, or the next change made: one for each nil, in order.
        var changes = made.makeIterator()
        let results = appends.refusals.map { refusal -> PlannedChange in
            if let refusal { return refusal }
            let change = changes.next()!
            var mutation = Mutation(
                list: nil, revision: change.record.revision, outcome: change.outcome, tripVersion: change.record.revision,
                addedFavorites: [])
            mutation.tripJSON = change.event.tripJSON
            return PlannedChange(
                result: .success(mutation), entry: PlannedChange.Entry(record: change.record, event: change.event, outcome: change.outcome))
        }
        do throws(PostgresStoreError) {
            if try caughtUpTo.get() == base {
                try redo(made, on: &state)
            } else {
                try reload(&state, through: base + UInt64(count))
            }
        } catch .database(let error) {
            throw .commitOutcomeUnknown(error)
        }
        phases.replayed = Int(base - seen)
        phases.changes = count
        phases.add(.catchUp, from: committed, to: SystemClock().now())
        timing = phases
        return results
    }

    /// A change of the batch as the database made it.
    private struct MadeAppend {
        let record: JournalRecord
        let event: ChangeEvent
        let outcome: TripChangeOutcome
        let keys: TripPositionKeys.Assignment
    }

    /// The batch's changes with the numbers the database gave: revisions and ids following
    /// `base` and `lastID`, keys `TripPositions.spacing` apart past `lastKey`.
    private static func made(
        _ added: [Appends.Added], after base: UInt64, lastID: Int, lastKey: Int64
    ) throws(PostgresStoreError) -> [MadeAppend] {
        try added.enumerated().map { (offset, added) throws(PostgresStoreError) in
            let revision = base + UInt64(offset + 1)
            let id = lastID + offset + 1
            let (step, multiplied) = TripPositions.spacing.multipliedReportingOverflow(by: Int64(offset + 1))
            let (key, overflowed) = lastKey.addingReportingOverflow(step)
            guard !multiplied, !overflowed else { throw .damaged("the append transaction's keys run past the end of bigint") }
            var data = JSONWriter(reservingCapacity: added.eventTail.count + 64)
            data.appendRaw(#"{"revision":"#)
            data.appendInteger(revision)
            data.appendRaw(#","trips":["#)
            let object = data.count
            data.appendRaw(#"{"id":"#)
            data.appendInteger(id)
            data.appendRaw(added.eventTail)
            let trip = Trip(id: id, draft: added.draft)
            return MadeAppend(
                record: JournalRecord(revision: revision, change: .add([added.draft], before: nil)),
                event: ChangeEvent(
                    revision: revision, name: "created", data: data.bytes,
                    tripObject: added.afterTripObject.map { object..<data.count - $0 }),
                outcome: .added([trip]), keys: TripPositionKeys.Assignment(ids: [id], keys: [key]))
        }
    }

    /// Redoes `made`, the batch's own changes, on `state`, which holds every change before them.
    private func redo(_ made: [MadeAppend], on state: inout State) throws(PostgresStoreError) {
        for change in made {
            let outcome = try state.redo(change.record, event: change.event, keys: change.keys, madeAs: change.outcome)
            guard state.list.lastIssuedID == change.keys.ids[0] else {
                throw .damaged("the append transaction gave trip \(change.keys.ids[0]) an id the list had not issued next")
            }
            steps?.append(.change(change.record, change.event, keys: change.keys, outcome: outcome))
        }
    }

    /// Reads everything again, the batch's changes with it, up to `revision` at least: the
    /// first of the changes before the batch was pruned.
    private func reload(_ state: inout State, through revision: UInt64) throws(PostgresStoreError) {
        let loaded = try load(historyCapacity: state.history.capacity, ledger: IdempotencyLedger(byteLimit: state.ledger.byteLimit))
        guard loaded.list.revision >= revision else {
            throw .damaged("the tables are at revision \(loaded.list.revision), behind the append transaction's \(revision)")
        }
        state = loaded
        steps = nil
    }

    /// Runs `statements`, the last of them `COMMIT`, in one round trip; the rows of the
    /// statement at `index` go to `eachRow` as they are read, and the answers up to it to
    /// `answered` once they are (`PostgresConnection.pipeline(_:eachRowOf:_:thenHandingAnswersTo:)`).
    ///
    /// A refused statement leaves the transaction failed: it is rolled back. A session that
    /// ended before `COMMIT` began committed nothing, and the error is as it came (the caller
    /// makes the batch again on a new connection, as after `commit`'s first round trip); once
    /// `COMMIT` may have begun, it is `.commitOutcomeUnknown`.
    private func runCommitting(
        _ statements: [PostgresStatement], eachRowOf index: Int, _ eachRow: (PostgresRowValues) -> Void,
        thenHandingAnswersTo answered: ([PostgresRows]) -> Void
    ) throws(PostgresStoreError) -> [PostgresRows] {
        assert(queued.isEmpty, "statements queued before an append transaction")
        do {
            return try connection.pipeline(statements, eachRowOf: index, eachRow, thenHandingAnswersTo: answered)
        } catch {
            // `COMMIT` answered, and an error after it: PostgreSQL never says that, so the
            // server is not to be believed either way; never made again.
            let commitAnswered = connection.answeredStatements == statements.count
            if !error.leavesConnectionUsable {
                guard !commitAnswered, case .server = error, connection.answeredStatements < statements.count - 1 else {
                    throw .commitOutcomeUnknown(error)
                }
            } else if connection.isOpen, connection.transactionStatus != .idle {
                // Also after an error that followed `COMMIT`: the session must not stay failed.
                _ = try? connection.simpleQuery("ROLLBACK")  // already failing; the error says why
            }
            throw commitAnswered ? .commitOutcomeUnknown(error) : .database(error)
        }
    }

    // MARK: Statements

    /// Names the session after `traceparent` until the transaction ends, before the lock is
    /// waited for (`lockingStateRow(naming:)` says why).
    static func naming(_ traceparent: String) -> PostgresStatement {
        PostgresStatement("SELECT set_config('application_name', $1, true)", [traceparent], prepared: true)
    }

    /// Moves the state row's revision and last id on by `count`, waiting for its lock; answers
    /// both as they were (where the batch starts), and notifies the new revision at `COMMIT`.
    ///
    /// It also has the rest of the transaction run on generic plans (`plan_cache_mode`, until
    /// `COMMIT`). Left to choose, PostgreSQL planned `insert` afresh in most transactions: a
    /// plan made for the arrays' lengths looked cheaper than the one kept, though both are the
    /// same plan (the list's last key through the index, then the rows inserted). Planning it
    /// was 170 µs a transaction, as much as running it, on the database's CPU that writes
    /// compete for; the other statements of an append transaction were on their generic plans
    /// already.
    static func allocate(_ count: Int) -> PostgresStatement {
        PostgresStatement(
            """
            WITH allocated AS (
                UPDATE trips_state SET revision = revision + $1, last_issued_id = last_issued_id + $1 RETURNING revision, last_issued_id)
            SELECT revision - $1, last_issued_id - $1, pg_notify($2, revision::text),
                set_config('plan_cache_mode', 'force_generic_plan', true)
            FROM allocated
            """,
            [String(count), channel], prepared: true)
    }

    /// The batch's trips and changes, their revisions, ids and keys made from the state row
    /// `allocate` moved on and the list's last key; answers that key.
    private static func insert(_ added: [Appends.Added]) -> PostgresStatement {
        var columns: PostgresParameters = [String(added.count), String(TripPositions.spacing)]
        appendFieldColumns(of: added.map(\.trip), to: &columns)
        columns.appendArray(count: added.count, utf8: { added[$0].recordTail })
        columns.appendArray(count: added.count, utf8: { added[$0].eventTail })
        return PostgresStatement(
            """
            WITH base AS (
                SELECT revision - $1 AS revision, last_issued_id - $1 AS id, (SELECT coalesce(max(position), 0) FROM trips) AS position
                FROM trips_state),
            new AS (
                SELECT * FROM unnest($3::text[], $4::text[], $5::integer[], $6::boolean[], $7::text[], $8::numeric[],
                    $9::double precision[], $10::text[], $11::text[], $12::text[])
                    WITH ORDINALITY AS t(city, country, nights, is_favorite, image_name, price, start, notes, record, data, n)),
            trips_added AS (
                INSERT INTO trips (id, position, version, city, country, nights, is_favorite, image_name, price, start, notes)
                SELECT b.id + n, b.position + $2 * n, b.revision + n, city, country, nights, is_favorite, image_name, price, start, notes
                FROM base b, new),
            changes_added AS (
                INSERT INTO trip_changes (revision, record, event, data, positions)
                SELECT b.revision + n, '{"revision":' || (b.revision + n) || record, 'created',
                    '{"revision":' || (b.revision + n) || ',"trips":[{"id":' || (b.id + n) || data,
                    (b.id + n) || ':' || (b.position + $2 * n)
                FROM base b, new)
            SELECT position FROM base
            """,
            columns, prepared: true)
    }
}
