import Foundation
import Synchronization
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// The trips tables against the real server, each test in a schema of its own (first on
/// the search path of every connection it opens), dropped at the end. Two connections to
/// one schema stand for two instances of the server.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresTripTablesLiveTests {
    private static let samples = TripList.samples.trips.map(\.draft)

    @Test func everyKindOfChangeReadsBackAsTheSameListHistoryAndKeys() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)] + everyKindOfChange)
            let keyed = ChangeRequest(
                plan: { _ in .setFavorite(1, false) },
                idempotency: IdempotencyRequest(key: IdempotencyLedger.Key(scope: "", key: "k-1"), fingerprint: "f", now: 1_800_000_000) {
                    mutation in
                    StoredAnswer(status: 200, fields: ["ETag": "\"\(mutation.revision)\""], content: .body(Array("{}".utf8)))
                })
            _ = try instance.tables.commit([keyed], to: &instance.state)

            let reread = try TablesInstance(schema: schema)
            #expect(reread.state.list == instance.state.list)
            #expect(reread.state.list.trips.map(\.id) == instance.state.list.trips.map(\.id))
            #expect(reread.state.history == instance.state.history)
            #expect(reread.state.ledger == instance.state.ledger)
            #expect(reread.state.ledger.lookup(IdempotencyLedger.Key(scope: "", key: "k-1"), fingerprint: "f") != .new)
            let positions = try reread.positions()
            #expect(positions.map(\.id) == reread.state.list.trips.map(\.id))
        }
    }

    /// A ledger that keeps nothing (`--idempotency-bytes 0`) forgets a key as soon as it is
    /// used: its second use in the same transaction is a change of its own, and the two are
    /// written as one row (an upsert naming a key twice was refused, and the transaction
    /// with it).
    @Test func aKeyUsedTwiceInOneTransactionIsWrittenOnce() async throws {
        try await inFreshSchema(named: "trips_keys") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)])
            instance.state.ledger = IdempotencyLedger(byteLimit: 0)
            let keyed = { (isFavorite: Bool) in
                ChangeRequest(
                    plan: { _ in .setFavorite(1, isFavorite) },
                    idempotency: IdempotencyRequest(key: IdempotencyLedger.Key(scope: "", key: "k-1"), fingerprint: "f", now: 1_800_000_000)
                    {
                        _ in StoredAnswer(status: 200, fields: [:], content: .body([]))
                    })
            }
            let wasFavorite = try #require(instance.state.list[1]).isFavorite
            // Both change the trip, so both are written with the key.
            let results = try instance.tables.commit([keyed(!wasFavorite), keyed(wasFavorite)], to: &instance.state)
            #expect(results.map { if case .success = $0.result { true } else { false } } == [true, true])
            #expect(try instance.changeRevisions().count == 3)
            #expect(try instance.keys() == ["k-1"])
            #expect(try TablesInstance(schema: schema).state.list[1]?.isFavorite == wasFavorite)
        }
    }

    /// Position keys are kept for the list's trips only: a change that gives one to a trip the
    /// list lacks, or a table row of one, is damage (a hostile server's far ids would each cost
    /// a page of the keys' table).
    @Test func positionKeysOfTripsTheListLacksAreDamage() async throws {
        try await inFreshSchema(named: "trips_stray_keys") { schema in
            let first = try TablesInstance(schema: schema)
            try first.commit([.add(Self.samples, before: nil)])
            let second = try TablesInstance(schema: schema)
            try first.commit([.move(ReorderDifference(sources: [5], destination: .before(1)))])
            _ = try first.tables.connection.query("UPDATE trip_changes SET positions = positions || ',1099511627776:7' WHERE revision = 2")
            let replayed = #expect(throws: PostgresStoreError.self) { try second.tables.catchUp(&second.state) }
            #expect(String(describing: replayed).contains("gives a position key to trip 1099511627776, which the list lacks"))

            let third = try TablesInstance(schema: schema)
            third.state.keys = nil
            _ = try first.tables.connection.query("UPDATE trips SET id = 1099511627776 WHERE id = 4")
            let read = #expect(throws: PostgresStoreError.self) { try third.commit([.setFavorite(1, true)]) }
            #expect(String(describing: read).contains("a position row names trip 1099511627776, which the list lacks"))
        }
    }

    /// What a start-up reads past what the state row says was issued (rows a broken or
    /// hostile server hands over) is refused as damage, and nothing is built from it.
    @Test(arguments: [
        ("UPDATE trips SET id = 1::bigint << 40 WHERE id = 3", "trip 1099511627776 at version 1 is past the last id issued (6)"),
        ("UPDATE trips SET version = 1::bigint << 40 WHERE id = 3", "trip 3 at version 1099511627776 is past the last id issued (6)"),
        ("UPDATE trips_state SET revision = -1", "trips_state does not hold one row of two counts"),
        // Issuing the next id overflowed; and ids past 2^53 a JavaScript client cannot read.
        ("UPDATE trips_state SET last_issued_id = 9007199254740992", "trips_state does not hold one row of two counts"),
        // PostgreSQL stores an infinite start; rendering one trapped.
        ("UPDATE trips SET start = 'Infinity' WHERE id = 3", "a trips row reads 3, 1, "),
        ("WITH t AS (UPDATE trips SET version = 0) UPDATE trips_state SET revision = 0", "1 changes are stored, more than the revision 0"),
    ])
    func rowsPastWhatTheStateRowIssuedAreDamage(tampering: String, message: String) async throws {
        try await inFreshSchema(named: "trips_tampered") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)])
            // Its check would refuse a revision below zero, which a server could still claim.
            _ = try instance.tables.connection.query("ALTER TABLE trips_state DROP CONSTRAINT trips_state_revision_check")
            _ = try instance.tables.connection.query(tampering)
            let error = #expect(throws: PostgresStoreError.self) { try TablesInstance(schema: schema) }
            #expect(String(describing: error).contains(message))
        }
    }

    /// A writer plans on the list at the locked state row's revision or not at all: tables
    /// that hand over fewer changes than the row counts (the last one gone), or a row behind
    /// what the writer already read, are damage, and nothing is written.
    @Test(arguments: [
        ("DELETE FROM trip_changes WHERE revision = 3", "the locked state row says revision 3, the tables 2"),
        ("UPDATE trips_state SET revision = 0", "the tables are at revision 0, behind the 1 already read"),
    ])
    func aWriterRefusesTablesThatDoNotReachTheLockedRevision(tampering: String, message: String) async throws {
        try await inFreshSchema(named: "trips_tampered") { schema in
            let first = try TablesInstance(schema: schema)
            let second = try TablesInstance(schema: schema)
            try first.commit([.add(storageDraft("Faro"))])
            try second.tables.catchUp(&second.state)
            try first.commit([.add(storageDraft("Sines")), .add(storageDraft("Porto"))])
            _ = try first.tables.connection.query(tampering)
            let before = try first.tables.connection.query("SELECT count(*) FROM trips").rows
            let error = #expect(throws: PostgresStoreError.self) { try second.commit([.add(storageDraft("Braga"))]) }
            #expect(String(describing: error).contains(message))
            #expect(try first.tables.connection.query("SELECT count(*) FROM trips").rows == before)
        }
    }

    /// `PostgresTripStore` keeps a second copy of the state and brings it up by the steps a
    /// transaction or a catching up took on the first (`State.redo`): the copy ends equal to
    /// the state changed in place, and to one read from the tables.
    @Test func aSecondCopyTakingTheStepsOfATransactionOrACatchingUpEndsTheSame() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let first = try TablesInstance(schema: schema)
            let second = try TablesInstance(schema: schema)
            var copies = (first.state, second.state)
            let keyed = { (key: String, change: TripChange?) in
                ChangeRequest(
                    plan: { _ in change },
                    idempotency: IdempotencyRequest(key: IdempotencyLedger.Key(scope: "", key: key), fingerprint: "f", now: 1_800_000_000) {
                        _ in StoredAnswer(status: 200, fields: [:], content: .body([]))
                    })
            }
            let changes = [TripChange.add(Self.samples, before: nil)] + everyKindOfChange
            // A keyed change, and a keyed request that changes nothing: its key is kept alone.
            let requests =
                changes.map { change in ChangeRequest { _ in change } } + [keyed("k-1", .setFavorite(2, false)), keyed("k-2", nil)]
            _ = try first.tables.commit(requests, to: &first.state)
            let steps = try #require(first.tables.steps)
            #expect(steps.count == changes.count + 2)
            #expect(steps.last == .keyKept(try #require(first.state.ledger.all.last)))
            for step in steps { try copies.0.redo(step) }
            #expect(try second.tables.catchUp(&second.state) == .replayed(changes.count + 1))
            for step in try #require(second.tables.steps) { try copies.1.redo(step) }
            let reread = try TablesInstance(schema: schema).state
            let table = TripPositionKeys(try first.positions())
            for state in [first.state, copies.0] { #expect(state.keys == table) }
            // The other instance replayed a sort, whose keys are not recorded: read before it writes.
            for state in [second.state, copies.1] { #expect(state.keys == nil) }
            for state in [copies.0, second.state, copies.1] {
                #expect(state.list == first.state.list && state.list.trips.map(\.id) == first.state.list.trips.map(\.id))
                #expect(state.history == first.state.history && state.history == reread.history)
                #expect(state.list == reread.list)
            }
            #expect(copies.0.ledger == first.state.ledger)
            #expect(copies.1.ledger == second.state.ledger)
            // A step that does not follow the copy's revision is refused, and changes nothing.
            #expect(throws: PostgresStoreError.self) { try copies.0.redo(steps[1]) }
            #expect(copies.0.list == first.state.list && copies.0.history == first.state.history)
        }
    }

    /// Each change records the position keys it gave, and another instance keeps them as it
    /// replays the change, so that its writes place trips without asking the table. A change
    /// recorded without them (a sort's; one written before they were recorded) leaves them
    /// unknown until the next transaction reads them, under the lock.
    @Test func anotherInstanceKeepsThePositionKeysTheChangesGave() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let first = try TablesInstance(schema: schema)
            let second = try TablesInstance(schema: schema)
            try first.commit([
                .add(Self.samples, before: nil), .move(ReorderDifference(sources: [5, 1], destination: .before(3))),
                .add([storageDraft("Faro")], before: 2), .delete([4]),
            ])
            try second.tables.catchUp(&second.state)
            #expect(second.state.keys == TripPositionKeys(try first.positions()))
            // Forty moves into one gap, on both instances in turn: windows of neighbours are
            // spread out, by either one, and the other keeps their keys.
            for (turn, source) in (8...47).enumerated() {
                let writer = turn.isMultiple(of: 2) ? first : second
                try writer.commit([
                    .add(storageDraft("City \(source)")), .move(ReorderDifference(sources: [source], destination: .before(3))),
                ])
            }
            try first.tables.catchUp(&first.state)
            let table = try first.positions()
            #expect(table.map(\.id) == first.state.list.trips.map(\.id))
            for instance in [first, second] { #expect(instance.state.keys == TripPositionKeys(table)) }

            // A sort's keys are not recorded: the other instance reads them before it writes.
            try first.commit([.sort(.price)])
            try second.tables.catchUp(&second.state)
            #expect(second.state.keys == nil)
            try second.commit([.move(ReorderDifference(sources: [2], destination: .before(1)))])
            #expect(second.state.keys == TripPositionKeys(try second.positions()))
            #expect(try second.positions().map(\.id) == second.state.list.trips.map(\.id))

            // Changes written before keys were recorded: the same.
            try second.commit([.move(ReorderDifference(sources: [6], destination: .before(1)))])
            _ = try second.tables.connection.query("UPDATE trip_changes SET positions = NULL")
            try first.tables.catchUp(&first.state)
            #expect(first.state.keys == nil)
            try first.commit([.add([storageDraft("Sines")], before: 6)])
            #expect(first.state.keys == TripPositionKeys(try first.positions()))
            #expect(try first.positions().map(\.id) == first.state.list.trips.map(\.id))
        }
    }

    @Test func anotherInstanceCatchesUpOnWhatOneWrote() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let first = try TablesInstance(schema: schema)
            let second = try TablesInstance(schema: schema)
            try first.commit([.add(Self.samples, before: nil), .move(ReorderDifference(sources: [5], destination: .before(2)))])
            #expect(try second.tables.catchUp(&second.state) == .replayed(2))
            #expect(second.state.list == first.state.list)
            #expect(second.state.history == first.state.history)

            // A write on the second instance catches up first: ids go on from the first's.
            try first.commit([.add(storageDraft("Faro"))])
            try second.commit([.add(storageDraft("Sines"))])
            #expect(second.state.list.trips.map(\.city).suffix(2) == ["Faro", "Sines"])
            #expect(Set(second.state.list.trips.map(\.id)).count == second.state.list.count)
            #expect(try first.tables.catchUp(&first.state) == .replayed(1))
            #expect(first.state.list == second.state.list)
        }
    }

    /// Another instance tells a change as its writer stored it, and does not write the
    /// trips' JSON again; a stored event that would break the feed's framing is damage.
    @Test func anotherInstanceTellsTheEventItsWriterStored() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let first = try TablesInstance(schema: schema)
            let second = try TablesInstance(schema: schema)
            try first.commit([.add(Self.samples, before: nil), .setFavorite(2, true)])
            let told = #"{"revision":2,"added":[2],"removed":[],"as":"stored"}"#
            _ = try first.tables.connection.query("UPDATE trip_changes SET data = $1 WHERE revision = 2", [told])
            #expect(try second.tables.catchUp(&second.state) == .replayed(2))
            #expect(second.state.history.all.map(\.data) == [first.state.history.all[0].data, Array(told.utf8)])

            try first.commit([.setFavorite(3, true)])
            _ = try first.tables.connection.query(#"UPDATE trip_changes SET data = E'{"revision":3}\n\nevent: reset' WHERE revision = 3"#)
            #expect(throws: PostgresStoreError.self) { try second.tables.catchUp(&second.state) }
        }
    }

    /// Catching up (each transaction's first round trip, under the lock) reads the changes
    /// through the primary key even in the plan PostgreSQL makes least of it: generic (a
    /// prepared statement's, after five runs) and with no statistics yet. The first form,
    /// `revision > $1` alone, got a scan and sort of the whole history there: 2.2 ms a
    /// transaction at 36,000 changes (scripts/bench/postgres.sh, pg_stat_statements).
    @Test func catchingUpReadsTheChangesThroughTheirIndexInAGenericPlan() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let instance = try TablesInstance(schema: schema)
            let connection = instance.tables.connection
            _ = try connection.query(
                "INSERT INTO trip_changes (revision, record, event, data) SELECT g, '{}', 'e', '{}' FROM generate_series(1, 20000) g")
            _ = try connection.query("UPDATE trips_state SET revision = 20000")
            let statement = PostgresTripTables.changes(after: instance.state)
            _ = try connection.query("SET plan_cache_mode = force_generic_plan")
            _ = try connection.query("PREPARE catching_up(bigint, bigint) AS \(statement.sql)")
            // As the present path reads them, and as an append transaction does (its own 5 left out).
            for execute in ["EXECUTE catching_up(19990, 0)", "EXECUTE catching_up(19990, 5)"] {
                let plan = try connection.query("EXPLAIN \(execute)").rows.compactMap { $0[0] }.joined(separator: "\n")
                #expect(plan.contains("Index") && !plan.contains("Seq Scan on trip_changes"), "\(plan)")
            }
        }
    }

    @Test func anInstanceBehindThePrunedChangesLoadsEverythingAgain() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let first = try TablesInstance(schema: schema)
            let near = try TablesInstance(schema: schema)
            let far = try TablesInstance(schema: schema)
            try first.commit([.add(Self.samples, before: nil)])
            #expect(try near.tables.catchUp(&near.state) == .replayed(1))
            try first.commit((1...30).map { .add(storageDraft("City \($0)")) })
            try first.tables.prune(PostgresRetention(changes: 30), now: 0)
            #expect(try first.changeRevisions() == Array(2...31))

            // One behind: the changes it missed are all there.
            #expect(try near.tables.catchUp(&near.state) == .replayed(30))
            #expect(near.state.list == first.state.list)
            #expect(near.state.history == first.state.history)

            // Further behind (its first missing change was pruned): reads everything again.
            try first.tables.prune(PostgresRetention(changes: 10), now: 0)
            #expect(try first.changeRevisions() == Array(22...31))
            #expect(try far.tables.catchUp(&far.state) == .reloaded)
            #expect(far.state.list == first.state.list)
            #expect(far.state.history.events(after: 21) == first.state.history.events(after: 21))
            #expect(far.state.history.events(after: 20) == nil)

            // A write on an instance that far behind reloads inside its transaction, then writes.
            try first.commit((1...12).map { .add(storageDraft("Town \($0)")) })
            try first.tables.prune(PostgresRetention(changes: 10), now: 0)
            try far.commit([.add(storageDraft("Faro"))])
            #expect(far.state.list.trips.reversed().first?.city == "Faro")
            #expect(far.state.list.revision == 44)
            #expect(try first.tables.catchUp(&first.state) == .replayed(1))
            #expect(far.state.list == first.state.list)
        }
    }

    @Test func pruningForgetsTheKeysTheLedgerWouldForget() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)])
            // Keys used at 1,000, 2,000 … 5,000 seconds.
            for (index, id) in (1...5).enumerated() {
                let keyed = ChangeRequest(
                    plan: { list in .setFavorite(id, !(list[id]?.isFavorite ?? false)) },
                    idempotency: IdempotencyRequest(
                        key: IdempotencyLedger.Key(scope: "", key: "k-\(id)"), fingerprint: "f", now: Int64(index + 1) * 1_000
                    ) { _ in StoredAnswer(status: 200, fields: [:], content: .body([])) })
                _ = try instance.tables.commit([keyed], to: &instance.state)
            }
            var retention = PostgresRetention(changes: 100)
            retention.keys = 1
            // At 6,000, a day of 2,500 s: keys used before 3,500 go; k-4 is young enough to stay.
            retention.keySeconds = 2_500
            try instance.tables.prune(retention, now: 6_000)
            #expect(try instance.keys() == ["k-4", "k-5"])
            // Every key is old now, but the newest stays, whatever its age.
            retention.keySeconds = 500
            try instance.tables.prune(retention, now: 6_000)
            #expect(try instance.keys() == ["k-5"])
        }
    }

    @Test func conditionalChangesRacingOnTwoInstancesLetExactlyOneWin() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            try TablesInstance(schema: schema).commit([.add(Self.samples, before: nil)])
            let instances = [try TablesInstance(schema: schema), try TablesInstance(schema: schema)]
            let seen = try #require(instances[0].state.list.version(of: 3))
            let outcomes = Mutex<[Result<Mutation, MutationError>]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let instance = instances[index]
                // If-Match: the version both read; checked inside each transaction.
                let write = ChangeRequest { (list) throws(MutationError) in
                    guard list.version(of: 3) == seen else { throw .preconditionFailed }
                    return .replace(3, storageDraft("Winner \(index)"))
                }
                let result = Result { try instance.tables.commit([write], to: &instance.state)[0].result }
                outcomes.withLock { $0.append((try? result.get()) ?? .failure(.storage(.closed))) }
            }
            let results = outcomes.withLock { $0 }
            #expect(results.filter { if case .success = $0 { true } else { false } }.count == 1)
            #expect(results.filter { if case .failure(.preconditionFailed) = $0 { true } else { false } }.count == 1)
            let reread = try TablesInstance(schema: schema)
            #expect(reread.state.list[3]?.city.hasPrefix("Winner") == true)
            #expect(reread.state.list.revision == 2)
        }
    }

    @Test func manyMovesIntoOneGapSpreadNeighboursOutAndKeepTheOrder() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add((0..<60).map { storageDraft("City \($0)") }, before: nil)])
            // A move into a wide gap writes the moved trip's row alone.
            let before = try instance.positions()
            try instance.commit([.move(ReorderDifference(sources: [50], destination: .before(11)))])
            let after = try instance.positions()
            let changed = Set(after.map { "\($0.id):\($0.key)" }).subtracting(before.map { "\($0.id):\($0.key)" })
            #expect(changed.count == 1)
            // Forty trips, one after another, into the gap in front of trip 31: more halvings
            // than the gap has, so windows of neighbours are spread out on the way.
            for source in 40...59 where source != 50 {
                try instance.commit([.move(ReorderDifference(sources: [source], destination: .before(31)))])
            }
            for source in 1...20 {
                try instance.commit([.move(ReorderDifference(sources: [source], destination: .before(31)))])
            }
            let positions = try instance.positions()
            #expect(positions.map(\.id) == instance.state.list.trips.map(\.id))
            #expect(Set(positions.map(\.key)).count == positions.count)
            #expect(instance.state.keys == TripPositionKeys(positions))
            let reread = try TablesInstance(schema: schema)
            #expect(reread.state.list == instance.state.list)
        }
    }

    @Test func manyChangesInOneTransactionKeepTheOrderTheListHas() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)])
            let changes: [TripChange] = [
                .add(storageDraft("End 1")), .add(storageDraft("End 2")),
                .move(ReorderDifference(sources: [2], destination: .end)),
                .add(storageDraft("End 3")), .delete([9]),
                .add([storageDraft("Front")], before: 1), .add(storageDraft("End 4")),
                .move(ReorderDifference(sources: [8, 1], destination: .end)), .add(storageDraft("End 5")),
            ]
            let results = try instance.tables.commit(changes.map { change in .init { _ in change } }, to: &instance.state)
            #expect(results.allSatisfy { if case .success = $0.result { true } else { false } })
            let positions = try instance.positions()
            #expect(positions.map(\.id) == instance.state.list.trips.map(\.id))
            #expect(Set(positions.map(\.key)).count == positions.count)
            #expect(instance.state.keys == TripPositionKeys(positions))
            #expect(try TablesInstance(schema: schema).state.list == instance.state.list)
        }
    }

    @Test func aRefusedChangeWritesNothingAndTheOthersInTheTransactionGoOn() async throws {
        try await inFreshSchema(named: "trips_tables") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)])
            let results = try instance.tables.commit(
                [
                    .init { _ in .delete([99]) },
                    .init { _ in .setFavorite(2, true) },
                    .init { _ in nil },
                ], to: &instance.state)
            #expect(results.count == 3)
            if case .failure(.rejected) = results[0].result {} else { Issue.record("expected a refusal, got \(results[0])") }
            if case .success(let made) = results[1].result { #expect(made.revision == 2) } else { Issue.record("\(results[1])") }
            if case .success(let nothing) = results[2].result {
                #expect(nothing.outcome == nil && results[2].entry == nil && nothing.revision == 2)
            } else {
                Issue.record("\(results[2])")
            }
            let reread = try TablesInstance(schema: schema)
            #expect(reread.state.list == instance.state.list)
            #expect(reread.state.list.revision == 2)
        }
    }
}
