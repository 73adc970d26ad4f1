import Testing

@testable import TripsPlatform
@testable import TripsStore

/// How a write transaction's phases are timed and summed for the metrics, from instants
/// given here (no clock is read).
@Suite struct WriteTransactionStatisticsTests {
    private static func at(milliseconds: UInt64) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: 5_000_000_000 + milliseconds * 1_000_000)
    }

    /// The instants from `milliseconds`: each phase ends where the next begins.
    private static func timing(_ milliseconds: [UInt64], changes: Int, replayed: Int) -> WriteTransactionTiming {
        var timing = WriteTransactionTiming(at: at(milliseconds: milliseconds[0]))
        for instant in milliseconds.dropFirst() { timing.endPhase(at: at(milliseconds: instant)) }
        timing.changes = changes
        timing.replayed = replayed
        return timing
    }

    @Test func eachPhaseLastsFromItsStartToTheNextOnes() {
        let timing = Self.timing([0, 1, 3, 6, 10], changes: 2, replayed: 1)
        #expect(WriteTransactionStatistics.Phase.allCases.map { timing.seconds(in: $0) } == [0.001, 0.002, 0.003, 0.004])
        // A phase not ended yet took no time.
        let begun = Self.timing([0, 7], changes: 0, replayed: 0)
        #expect(begun.seconds(in: .lock) == 0.007 && begun.seconds(in: .catchUp) == 0 && begun.seconds(in: .commit) == 0)
    }

    @Test func transactionsAreSummed() {
        var statistics = WriteTransactionStatistics()
        statistics.record(Self.timing([0, 1, 3, 6, 10], changes: 2, replayed: 1))
        statistics.record(Self.timing([20, 22, 22, 25, 30], changes: 5, replayed: 0))
        #expect(statistics.transactions == 2 && statistics.changes == 7 && statistics.replayed == 1)
        let expected = [0.003, 0.002, 0.006, 0.009]
        #expect(zip(statistics.seconds, expected).allSatisfy { abs($0 - $1) < 1e-12 })
        #expect(WriteTransactionStatistics.Phase.allCases.map(\.label) == ["lock", "catch_up", "plan", "commit"])
    }

    /// An append transaction's phases come in an order of their own (planning, the one round
    /// trip, catching up): each counts where it is put, and the transaction as an append.
    @Test func anAppendTransactionsPhasesCountWhereTheyArePut() {
        var timing = WriteTransactionTiming(at: Self.at(milliseconds: 0))
        timing.isAppends = true
        timing.add(.plan, from: Self.at(milliseconds: 0), to: Self.at(milliseconds: 1))
        timing.add(.commit, from: Self.at(milliseconds: 1), to: Self.at(milliseconds: 4))
        timing.add(.catchUp, from: Self.at(milliseconds: 4), to: Self.at(milliseconds: 6))
        #expect(WriteTransactionStatistics.Phase.allCases.map { timing.seconds(in: $0) } == [0, 0.002, 0.001, 0.003])
        var statistics = WriteTransactionStatistics()
        statistics.record(timing)
        statistics.record(Self.timing([0, 1, 3, 6, 10], changes: 2, replayed: 1))
        #expect(statistics.transactions == 2 && statistics.appendTransactions == 1)
    }
}
