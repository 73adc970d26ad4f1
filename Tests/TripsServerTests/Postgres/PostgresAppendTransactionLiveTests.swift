import Foundation
import Testing
import TripsDomain
import TripsFormats
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// Append transactions (`PostgresTripTables.commitAppends`) against the real server: lone
/// appends written in one round trip, the database giving their revisions, ids and keys.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresAppendTransactionLiveTests {
    private static let samples = TripList.samples.trips.map(\.draft)
    /// Drafts whose JSON needs escaping (a quote, a line break, a backslash, a character past ASCII).
    private static let drafts = [storageDraft("Faro"), storageDraft(#"Sines "\ na costa"#), storageDraft("Óbidos")]

    /// The same changes made as appends in one schema and the present way in another leave
    /// the same rows, byte for byte, and answers; and what an append wrote reads back as the
    /// list, history and keys the writer holds.
    @Test func anAppendWritesWhatThePresentPathWrites() async throws {
        let (appended, answers) = try await inFreshSchema(named: "trips_appends") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)])
            let results = try instance.append(Self.drafts)
            #expect(instance.tables.timing?.isAppends == true, "one append transaction")
            #expect(instance.tables.timing?.changes == Self.drafts.count)
            // Its wait for the lock, which the writer's patience for its next batch is taken from.
            #expect((instance.tables.timing?.seconds(in: .lock) ?? 0) > 0)
            let reread = try TablesInstance(schema: schema)
            #expect(reread.state.list == instance.state.list)
            #expect(reread.state.list.trips.map(\.id) == instance.state.list.trips.map(\.id))
            #expect(reread.state.history == instance.state.history)
            #expect(instance.state.keys == TripPositionKeys(try reread.positions()))
            #expect(try reread.positions().map(\.id) == reread.state.list.trips.map(\.id))
            return (try Self.rows(instance), try results.map(Self.answer))
        }
        let (present, presentAnswers) = try await inFreshSchema(named: "trips_appends") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)])
            let results = try instance.tables.commit(Self.drafts.map { draft in ChangeRequest { _ in .add(draft) } }, to: &instance.state)
            #expect(instance.tables.timing?.isAppends == false)
            return (try Self.rows(instance), try results.map(Self.answer))
        }
        #expect(appended == present)
        #expect(answers == presentAnswers)
        #expect(answers.map(\.revision) == [2, 3, 4] && answers.map(\.id) == [7, 8, 9])
    }

    /// Append transactions run on their generic plans: left to choose, PostgreSQL planned the
    /// insert afresh for most batches (their arrays' lengths made a plan of their own look
    /// cheaper), which took as long as running it. The session's prepared statements count
    /// the plans each took (`pg_prepared_statements`).
    @Test func appendTransactionsRunOnGenericPlans() async throws {
        try await inFreshSchema(named: "trips_appends") { schema in
            let instance = try TablesInstance(schema: schema)
            for count in 1...8 {
                let results = try instance.append((1...count).map { storageDraft("City \($0)") })
                #expect(instance.tables.timing?.isAppends == true && results.count == count)
            }
            let plans = try instance.tables.query(
                """
                SELECT coalesce(sum(custom_plans), 0)::text, coalesce(sum(generic_plans), 0)::text FROM pg_prepared_statements
                WHERE statement LIKE '%INSERT INTO trips %'
                """
            ).rows
            #expect(plans.first?[0] == "0", "no plan made for a batch's own values")
            #expect(plans.first?[1] == "8", "the one kept, for each batch")
        }
    }

    /// Another instance's changes made while this one's list was behind come first: the
    /// append transaction reads them with the lock and hands them over as soon as they are read
    /// (to the feed, while PostgreSQL writes the batch), and its own follow them. A second copy
    /// of the state taking the steps ends the same (`PostgresTripStore` keeps two).
    @Test func anAppendFollowsWhatAnotherInstanceMadeMeanwhile() async throws {
        try await inFreshSchema(named: "trips_appends") { schema in
            let first = try TablesInstance(schema: schema)
            let second = try TablesInstance(schema: schema)
            try first.commit([.add(Self.samples, before: nil)])
            try second.tables.catchUp(&second.state)
            try first.commit([
                .add([storageDraft("Faro")], before: 2), .move(ReorderDifference(sources: [1], destination: .end)), .delete([3]),
            ])
            var copy = second.state
            // The other's changes are handed over as soon as they are read, before the batch's own.
            var caughtUp: [(revision: UInt64, steps: Int?)] = []
            let requests = Self.drafts.map { draft in ChangeRequest(plan: { _ in .add(draft) }, readsNoList: true) }
            let results = try second.tables.commit(requests, to: &second.state) { state, steps in
                caughtUp.append((state.list.revision, steps?.count))
                for step in steps ?? [] { try? copy.redo(step) }
            }
            #expect(caughtUp.count == 1 && caughtUp.first?.revision == 4 && caughtUp.first?.steps == 3)
            #expect(second.tables.timing?.replayed == 3 && second.tables.timing?.isAppends == true)
            #expect(try results.map(Self.answer).map(\.revision) == [5, 6, 7])
            #expect(second.state.list.trips.map(\.id).suffix(4) == [1, 8, 9, 10], "after the move, in order, ids after the other's")
            #expect(second.tables.steps?.count == 3, "the batch's own, after those handed over")
            for step in try #require(second.tables.steps) { try copy.redo(step) }
            #expect(copy.list == second.state.list && copy.history == second.state.history && copy.keys == second.state.keys)
            let reread = try TablesInstance(schema: schema)
            #expect(reread.state.list == second.state.list && reread.state.history == second.state.history)
            #expect(second.state.keys == TripPositionKeys(try reread.positions()))

            // And the present path on the first instance catches up on them as on any change.
            try first.commit([.setFavorite(9, true)])
            #expect(try first.positions().map(\.id) == first.state.list.trips.map(\.id))
            #expect(first.state.keys == TripPositionKeys(try first.positions()))
        }
    }

    /// An append the list refuses is answered so, and the others in the batch are made; a batch
    /// of refusals makes no transaction. A batch holding any other change, or an append with an
    /// idempotency key, goes the present way.
    @Test func refusalsAndOtherChangesInABatch() async throws {
        try await inFreshSchema(named: "trips_appends") { schema in
            let instance = try TablesInstance(schema: schema)
            try instance.commit([.add(Self.samples, before: nil)])
            var invalid = storageDraft("Faro")
            invalid.nights = 0
            // Within the limit in characters, over it in code points.
            let marked = storageDraft(String(repeating: "e\u{301}", count: TripDraft.Limits.nameLength))
            let results = try instance.append([invalid, storageDraft("Sines"), marked])
            guard case .failure(.rejected) = results[0].result, case .success(let made) = results[1].result,
                case .failure(.rejected) = results[2].result
            else {
                throw TestFailure("\(results)")
            }
            #expect(made.revision == 2 && instance.tables.timing?.isAppends == true)

            let refused = try instance.append([invalid])
            #expect(refused.count == 1 && (try? refused[0].result.get()) == nil)
            #expect(instance.tables.timing == nil, "no transaction")
            #expect(try instance.changeRevisions().last == 2)

            let mixed = [
                ChangeRequest(plan: { _ in .add(storageDraft("Faro")) }, readsNoList: true),
                ChangeRequest { _ in .move(ReorderDifference(sources: [1], destination: .end)) },
            ]
            _ = try instance.tables.commit(mixed, to: &instance.state)
            #expect(instance.tables.timing?.isAppends == false && instance.state.list.revision == 4)
        }
    }

    /// A key past the end of `bigint` fails the append transaction, which commits nothing; the
    /// present path then makes the append, spreading the last keys out.
    @Test func anAppendTheDatabaseRefusesIsMadeThePresentWay() async throws {
        try await inFreshSchema(named: "trips_appends") { schema in
            let writer = try TablesInstance(schema: schema)
            try writer.commit([.add(Self.samples, before: nil)])
            _ = try writer.tables.connection.query("UPDATE trips SET position = 9223372036854775000 WHERE id = 6")
            let instance = try TablesInstance(schema: schema)
            let results = try instance.append([storageDraft("Faro")])
            guard case .success(let made) = results[0].result else { throw TestFailure("\(results)") }
            #expect(made.revision == 2 && instance.tables.timing?.isAppends == false)
            #expect(instance.tables.connection.transactionStatus == .idle)
            #expect(try instance.positions().map(\.id) == instance.state.list.trips.map(\.id))
            #expect(instance.state.keys == TripPositionKeys(try instance.positions()))
            #expect(try instance.changeRevisions() == [1, 2])
        }
    }

    /// The rows an instance's changes left, as text: trips in order and every change.
    private static func rows(_ instance: TablesInstance) throws -> [[String?]] {
        let connection = instance.tables.connection
        let trips = try connection.query(
            """
            SELECT id, position, version, city, country, nights, is_favorite, image_name, price, start, notes, photo_digest
            FROM trips ORDER BY position
            """)
        return try trips.rows + connection.query("SELECT revision, record, event, data, positions FROM trip_changes ORDER BY revision").rows
    }

    /// What a create's answer holds.
    private struct Answer: Equatable {
        let revision: UInt64
        let id: Trip.ID
        let version: UInt64?
        let json: [UInt8]?
    }

    private static func answer(_ planned: PlannedChange) throws -> Answer {
        let mutation = try planned.result.get()
        guard case .added(let trips)? = mutation.outcome, trips.count == 1 else { throw TestFailure("\(mutation)") }
        var writer = JSONWriter(reservingCapacity: 256)
        trips[0].writeJSON(to: &writer)
        #expect(mutation.tripJSON.map(Array.init) == writer.bytes, "the answer sends the trip's JSON from its event")
        return Answer(revision: mutation.revision, id: trips[0].id, version: mutation.tripVersion, json: mutation.tripJSON.map(Array.init))
    }
}
