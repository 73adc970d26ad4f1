import TripsDomain

/// The most recent changes, in revision order, for clients that resume the change feed.
///
/// It keeps the last `capacity` events, or fewer when they would take more than `byteLimit`
/// bytes (the latest is always kept): a few changes that each added a thousand trips must not
/// hold hundreds of megabytes. Revisions are consecutive (one per journaled change); the
/// history survives restarts inside the snapshot, and is rebuilt from the journal for the
/// changes after it.
package struct ChangeHistory: Sendable {
    /// How many events are kept at most.
    package let capacity: Int
    /// How many bytes of event data are kept at most, unless one event alone takes more.
    package let byteLimit: Int
    /// The kept events are `events[first...]`, oldest first; the ones before are dropped
    /// and cleared out once they are the larger part.
    private var events: [ChangeEvent] = []
    private var first = 0
    /// The data bytes of the kept events.
    private var bytes = 0
    /// The list's revision: the last event's, or where the history begins when it is empty.
    package private(set) var revision: UInt64

    package init(capacity: Int, byteLimit: Int = 16 << 20, revision: UInt64) {
        self.capacity = max(1, capacity)
        self.byteLimit = byteLimit
        self.revision = revision
    }

    /// The events kept, oldest first.
    package var all: [ChangeEvent] {
        Array(events[first...])
    }

    /// Adds the event of the change that just made the list's revision `event.revision`.
    package mutating func append(_ event: ChangeEvent) {
        revision = event.revision
        events.append(event)
        bytes += event.data.count
        while events.count - first > 1 && (events.count - first > capacity || bytes > byteLimit) {
            bytes -= events[first].data.count
            first += 1
        }
        if first >= 1_024 && first * 2 >= events.count {
            events.removeFirst(first)
            first = 0
        }
    }

    /// What a client that has seen every change up to `since` missed: the events after it,
    /// oldest first, or nil when the history no longer reaches back that far (or `since` is
    /// ahead of the list), so the client has to read the list again.
    package func events(after since: UInt64) -> [ChangeEvent]? {
        guard since <= revision else { return nil }
        let missed = Int(revision - since)
        guard missed <= events.count - first else { return nil }
        return Array(events[(events.count - missed)...])
    }
}

extension ChangeHistory: Equatable {
    /// Two histories are equal when they keep the same events under the same limits.
    package static func == (lhs: ChangeHistory, rhs: ChangeHistory) -> Bool {
        lhs.capacity == rhs.capacity && lhs.byteLimit == rhs.byteLimit && lhs.revision == rhs.revision
            && lhs.events[lhs.first...] == rhs.events[rhs.first...]
    }
}
