import Testing

@testable import TripsPostgres

/// A session's prepared statements: parsed under a name the first time, then only bound to it;
/// described until the server has told their columns once.
@Suite struct PostgresPreparedStatementsTests {
    /// The name of the statement each Bind of `messages` runs.
    private static func boundNames(_ messages: [FrontendMessage]) -> [String] {
        messages.compactMap { if case .bind(_, let statement, _) = $0 { statement } else { nil } }
    }

    private static func describes(_ messages: [FrontendMessage]) -> Int {
        messages.count { if case .describe = $0 { true } else { false } }
    }

    @Test func aStatementIsParsedOnceThenOnlyBoundAndDescribedOnceItsColumnsAreKnown() {
        var prepared = PostgresPreparedStatements()
        let statement = PostgresStatement("SELECT revision FROM trips_state", prepared: true)
        let first = prepared.messages(for: [statement])
        #expect(first.plans == [PostgresPreparedStatements.Plan(sql: statement.sql, isParsed: true, name: "trips_0")])
        // Not yet parsed (its Parse might have been skipped): parsed again.
        #expect(prepared.messages(for: [statement]).plans[0].isParsed)
        prepared.parsed(first.plans[0])
        let second = prepared.messages(for: [statement])
        #expect(!second.plans[0].isParsed && Self.boundNames(second.messages) == ["trips_0"])
        // Parsed, not yet described (its Describe might have been skipped): described again.
        #expect(second.plans[0].columns == nil && Self.describes(second.messages) == 1)
        prepared.described(second.plans[0], columns: ["revision"])
        let third = prepared.messages(for: [statement])
        #expect(third.plans[0].columns == ["revision"] && Self.describes(third.messages) == 0)
        #expect(third.messages.count == 3)  // Bind, Execute, Sync
    }

    /// An unnamed statement (not prepared, or past the limit) is parsed and described every time.
    @Test func anUnpreparedStatementIsParsedAndDescribedEveryTime() {
        var prepared = PostgresPreparedStatements()
        let statement = PostgresStatement("SELECT 1 AS one")
        for _ in 0..<2 {
            let run = prepared.messages(for: [statement])
            #expect(run.plans == [PostgresPreparedStatements.Plan(sql: statement.sql, isParsed: true)])
            #expect(Self.describes(run.messages) == 1)
            prepared.parsed(run.plans[0])
            prepared.described(run.plans[0], columns: ["one"])
        }
    }

    /// Statements are found by their SQL's length first: two of one length keep their own names.
    @Test func statementsOfOneLengthKeepTheirOwnNames() {
        var prepared = PostgresPreparedStatements()
        let (a, b) = (PostgresStatement("SELECT 1 AS a", prepared: true), PostgresStatement("SELECT 1 AS b", prepared: true))
        let first = prepared.messages(for: [a, b, a])
        #expect(first.plans.map(\.name) == ["trips_0", "trips_1", "trips_0"])
        #expect(first.plans.map(\.isParsed) == [true, true, false])
        #expect(Self.boundNames(first.messages) == ["trips_0", "trips_1", "trips_0"])
        for plan in first.plans { prepared.parsed(plan) }
        prepared.described(first.plans[0], columns: ["a"])
        prepared.described(first.plans[1], columns: ["b"])
        let second = prepared.messages(for: [b, a])
        #expect(second.plans.map(\.columns) == [["b"], ["a"]])
        #expect(Self.boundNames(second.messages) == ["trips_1", "trips_0"])
    }
}
