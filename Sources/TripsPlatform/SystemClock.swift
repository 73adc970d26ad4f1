import Dispatch
import Glibc

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
