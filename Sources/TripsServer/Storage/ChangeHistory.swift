import TripsDomain

/// The most recent changes, in revision order, for clients that resume the change feed.
///
/// It keeps at least the last `capacity` events (revisions are consecutive: one per
/// journaled change), survives restarts inside the snapshot, and is rebuilt from the journal
/// for the changes after it.
struct ChangeHistory: Sendable, Equatable {
    /// How many events are kept at least.
    let capacity: Int
    /// The kept events, oldest first.
    private var events: [ChangeEvent] = []
    /// Where the oldest event is in `events` (a ring once full).
    private var start = 0
    /// The list's revision: the last event's, or where the history begins when it is empty.
    private(set) var revision: UInt64

    init(capacity: Int, revision: UInt64) {
        self.capacity = max(1, capacity)
        self.revision = revision
    }

    /// The events kept, oldest first.
    var all: [ChangeEvent] {
        Array(events[start...] + events[..<start])
    }

    /// Adds the event of the change that just made the list's revision `event.revision`.
    mutating func append(_ event: ChangeEvent) {
        revision = event.revision
        if events.count < capacity {
            events.append(event)
        } else {
            events[start] = event
            start = (start + 1) % capacity
        }
    }

    /// What a client that has seen every change up to `since` missed: the events after it,
    /// oldest first, or nil when the history no longer reaches back that far (or `since` is
    /// ahead of the list), so the client has to read the list again.
    func events(after since: UInt64) -> [ChangeEvent]? {
        guard since <= revision else { return nil }
        let missed = Int(revision - since)
        guard missed <= events.count else { return nil }
        guard missed > 0 else { return [] }
        let first = (start + events.count - missed) % events.count
        if first + missed <= events.count { return Array(events[first..<(first + missed)]) }
        return Array(events[first...] + events[..<(first + missed - events.count)])
    }
}
