import Synchronization

/// What the streams of a hub may hold of their backlogs (the bytes a stream starts with: the
/// changes a resuming client missed) before their clients take them, all streams together: a
/// crowd of clients that each ask for a long replay and then read nothing holds at most this
/// much, not a replay each. A stream whose backlog does not fit starts without it.
package final class HTTPStreamBacklog: Sendable {
    /// The most bytes reserved at once.
    package let capacity: Int
    private let reserved = Atomic<Int>(0)

    /// 67,108,864 (64 MiB): four replays of the longest history `/trips/changes` keeps (16 MiB).
    package static let defaultCapacity = 64 << 20

    package init(capacity: Int = defaultCapacity) {
        self.capacity = capacity
    }

    /// Bytes reserved now, by streams whose clients have not yet been seen to take them.
    package var reservedBytes: Int { reserved.load(ordering: .relaxed) }

    /// Reserves `bytes`, or nil when they do not fit beside what other streams hold.
    package func reserve(_ bytes: Int) -> Reservation? {
        var current = reserved.load(ordering: .relaxed)
        while true {
            guard bytes <= capacity - current else { return nil }
            let (exchanged, original) = reserved.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return Reservation(bytes: bytes, backlog: self) }
            current = original
        }
    }

    /// Bytes held for one stream until the connection lets go of it: once nothing of what it
    /// wrote is left unsent, or when it closes (a stream that never starts gives them back at once).
    package final class Reservation: Sendable {
        package let bytes: Int
        private let backlog: HTTPStreamBacklog

        fileprivate init(bytes: Int, backlog: HTTPStreamBacklog) {
            self.bytes = bytes
            self.backlog = backlog
        }

        deinit { backlog.reserved.subtract(bytes, ordering: .relaxed) }
    }
}
