import TripsPlatform

/// One write transaction's phases (`WriteTransactionStatistics.Phase`): how long each took.
/// A transaction of the present path passes them in order (`endPhase`); an append transaction
/// (`PostgresTripTables.commitAppends`) in an order of its own (`add`).
package struct WriteTransactionTiming: Sendable {
    private var seconds = Array(repeating: 0.0, count: WriteTransactionStatistics.Phase.allCases.count)
    /// The phase `endPhase` ends next, and when it began.
    private var phase = 0
    private var since: MonotonicInstant
    package var changes = 0
    package var replayed = 0
    /// Whether the transaction was an append transaction.
    package var isAppends = false

    /// Starts the first phase now.
    package init(at start: MonotonicInstant) {
        since = start
    }

    /// Ends the phase under way at `instant`, which starts the next one.
    package mutating func endPhase(at instant: MonotonicInstant) {
        guard phase < seconds.count else { return }
        seconds[phase] += Self.seconds(from: since, to: instant)
        phase += 1
        since = instant
    }

    /// Counts the time from `start` to `end` in `phase`.
    package mutating func add(_ phase: WriteTransactionStatistics.Phase, from start: MonotonicInstant, to end: MonotonicInstant) {
        seconds[phase.rawValue] += Self.seconds(from: start, to: end)
    }

    /// How long `phase` took; 0 when it has not ended.
    package func seconds(in phase: WriteTransactionStatistics.Phase) -> Double {
        seconds[phase.rawValue]
    }

    private static func seconds(from start: MonotonicInstant, to end: MonotonicInstant) -> Double {
        Double(end.nanoseconds(since: start)) / 1e9
    }
}
