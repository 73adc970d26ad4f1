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
