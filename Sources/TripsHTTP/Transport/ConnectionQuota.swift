import Synchronization

/// How many connections the whole server may hold open, over all its event loops: the loop
/// that accepts a connection takes a place for it, and the loop that closes it gives it back.
/// A connection past the limit is accepted and closed at once, so that it does not wait in
/// the backlog and the peer learns at once that there is no room.
final class ConnectionQuota: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a place for a new connection; false when all `limit` are taken.
    func admit() -> Bool {
        if open.add(1, ordering: .relaxed).newValue <= limit { return true }
        open.subtract(1, ordering: .relaxed)
        return false
    }

    /// Gives back the place of a connection that closed.
    func release() {
        open.subtract(1, ordering: .relaxed)
    }
}
