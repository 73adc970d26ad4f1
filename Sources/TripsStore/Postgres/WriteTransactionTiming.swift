import TripsPlatform

/// One write transaction's phases as they pass (`WriteTransactionStatistics.Phase`): the
/// instant each began, and the instant the last ended.
package struct WriteTransactionTiming: Sendable {
    private var instants: [MonotonicInstant]
    package var changes = 0
    package var replayed = 0

    /// Starts the first phase now.
    package init(at start: MonotonicInstant) {
        instants = [start]
        instants.reserveCapacity(WriteTransactionStatistics.Phase.allCases.count + 1)
    }

    /// Ends the phase under way at `instant`, which starts the next one.
    package mutating func endPhase(at instant: MonotonicInstant) {
        instants.append(instant)
    }

    /// How long `phase` took; 0 when it has not ended.
    package func seconds(in phase: WriteTransactionStatistics.Phase) -> Double {
        guard phase.rawValue + 1 < instants.count else { return 0 }
        return Double(instants[phase.rawValue + 1].nanoseconds(since: instants[phase.rawValue])) / 1e9
    }
}
