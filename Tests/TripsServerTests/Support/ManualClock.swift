import Synchronization
@testable import TripsPlatform
@testable import TripsServer

/// A clock that moves only when told to, for deterministic timeout tests.
///
///     let clock = ManualClock()
///     clock.advance(by: .seconds(11))   // every event loop re-checks its deadlines,
///                                       // and work scheduled by then runs
final class ManualClock: SchedulingClock {
    private struct State {
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        var wakers: [@Sendable () -> Void] = []
        var scheduled: [(due: MonotonicInstant, action: @Sendable () -> Void)] = []
    }

    private let state = Mutex(State())

    init() {}

    func now() -> MonotonicInstant { state.withLock { $0.now } }

    func onAdvance(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wakers.append(wake) }
    }

    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.scheduled.append(($0.now + delay, action)) }
    }

    /// How many scheduled actions have not run yet.
    var pendingCount: Int { state.withLock { $0.scheduled.count } }

    /// Moves the time forward, runs the work that has come due, and wakes every registered loop.
    func advance(by duration: Duration) {
        let (wakers, due) = state.withLock { state in
            state.now = state.now + duration
            let now = state.now
            let due = state.scheduled.filter { $0.due <= now }.map(\.action)
            state.scheduled.removeAll { $0.due <= now }
            return (state.wakers, due)
        }
        for action in due { action() }
        for wake in wakers { wake() }
    }
}
