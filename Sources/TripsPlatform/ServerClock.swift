import Dispatch
import Glibc

/// A point on a monotonic clock, in nanoseconds from an arbitrary origin.
package struct MonotonicInstant: Sendable, Hashable, Comparable {
    package var nanoseconds: UInt64

    package init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    package static func + (lhs: Self, rhs: Duration) -> Self {
        Self(nanoseconds: lhs.nanoseconds &+ rhs.nanoseconds)
    }

    /// The time from `earlier` to `self`, or zero if `earlier` is later.
    package func nanoseconds(since earlier: Self) -> UInt64 {
        nanoseconds > earlier.nanoseconds ? nanoseconds - earlier.nanoseconds : 0
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped at zero.
    package var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}

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

/// The monotonic system clock.
package struct SystemClock: SchedulingClock {
    package init() {}

    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: delay.nanoseconds)), execute: action)
    }

    package func now() -> MonotonicInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicInstant(nanoseconds: UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec))
    }
}
