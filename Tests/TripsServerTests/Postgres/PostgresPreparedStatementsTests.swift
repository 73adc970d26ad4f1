import Testing

@testable import TripsPostgres

/// A session's prepared statements: parsed under a name the first time, then only bound to it.
@Suite struct PostgresPreparedStatementsTests {
    /// The name of the statement each Bind of `messages` runs.
    private static func boundNames(_ messages: [FrontendMessage]) -> [String] {
        messages.compactMap { if case .bind(_, let statement, _) = $0 { statement } else { nil } }
    }

    @Test func aStatementIsParsedOnceThenOnlyBound() {
        var prepared = PostgresPreparedStatements()
        let statement = PostgresStatement("SELECT revision FROM trips_state", prepared: true)
        let first = prepared.messages(for: [statement])
        #expect(first.parses.count == 1 && first.parses[0]?.name == "trips_0")
        // Not yet parsed (its Parse might have been skipped): parsed again.
        #expect(prepared.messages(for: [statement]).parses[0] != nil)
        for parse in first.parses { prepared.parsed(parse) }
        let second = prepared.messages(for: [statement])
        #expect(second.parses.count == 1 && second.parses[0] == nil)
        #expect(Self.boundNames(second.messages) == ["trips_0"])
    }

    /// Statements are found by their SQL's length first: two of one length keep their own names.
    @Test func statementsOfOneLengthKeepTheirOwnNames() {
        var prepared = PostgresPreparedStatements()
        let (a, b) = (PostgresStatement("SELECT 1 AS a", prepared: true), PostgresStatement("SELECT 1 AS b", prepared: true))
        let first = prepared.messages(for: [a, b, a])
        #expect(first.parses.map { $0?.name } == ["trips_0", "trips_1", nil])
        #expect(Self.boundNames(first.messages) == ["trips_0", "trips_1", "trips_0"])
        for parse in first.parses { prepared.parsed(parse) }
        let second = prepared.messages(for: [b, a])
        #expect(second.parses.allSatisfy { $0 == nil })
        #expect(Self.boundNames(second.messages) == ["trips_1", "trips_0"])
    }
}
