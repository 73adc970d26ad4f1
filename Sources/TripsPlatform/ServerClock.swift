/// Where the server reads the time for its deadlines.
///
/// Production uses `SystemClock` (CLOCK_MONOTONIC). Tests use `ManualClock`, whose `advance`
/// wakes the event loops through the callbacks given to `onAdvance` so they check deadlines again.
package protocol ServerClock: Sendable {
    func now() -> MonotonicInstant
    /// Registers `wake` to be called whenever the time jumps (manual clocks only).
    func onAdvance(_ wake: @escaping @Sendable () -> Void)
}

extension ServerClock {
    package func onAdvance(_ wake: @escaping @Sendable () -> Void) {}
}

/// A clock that can also run work later: what a long poll waits with.
package protocol SchedulingClock: ServerClock {
    /// Runs `action` once `delay` has passed on this clock, on some other thread.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void)
}
