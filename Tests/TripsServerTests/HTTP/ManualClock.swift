import Synchronization

@testable import TripsServer

/// A clock that moves only when told to, for deterministic timeout tests.
///
///     let clock = ManualClock()
///     clock.advance(by: .seconds(11))   // every event loop re-checks its deadlines
final class ManualClock: ServerClock {
    private struct State {
        var now = MonotonicInstant(nanoseconds: 1_000_000_000)
        var wakers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    init() {}

    func now() -> MonotonicInstant { state.withLock { $0.now } }

    func onAdvance(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wakers.append(wake) }
    }

    /// Moves the time forward and wakes every registered loop.
    func advance(by duration: Duration) {
        let wakers = state.withLock { state in
            state.now = state.now + duration
            return state.wakers
        }
        for wake in wakers { wake() }
    }
}
