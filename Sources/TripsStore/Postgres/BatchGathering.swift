/// Whether the writer holds its next batch back, briefly, for the writes of the clients its
/// last batch answered.
///
/// Each write transaction waits for the `trips_state` row's lock while the other instances'
/// transactions hold it. A batch sent as soon as the last one committed carries only the
/// writes that arrived during that transaction: the clients it answered send their next
/// writes a moment later, and those wait a whole turn of the lock. Under load the clients
/// split into two halves taking turns, each transaction carrying one half (15 of two
/// instances' 32 connections each, 8 of four's 16). Held back until as many writes as the
/// last batch had have joined it, and no longer than the last transaction waited for the
/// lock, a batch still queues behind the other instances' transactions, and carries up to
/// twice as many writes for one transaction's cost on the database. A writer whose last
/// transaction replayed no other instance's change (an instance alone on its database: its
/// wait was the round trip, not the lock) holds nothing back, nor one that has just slept.
package struct BatchGathering: Sendable {
    /// How long a batch is held back at most, whatever the lock's wait.
    package static let defaultLimit: Duration = .milliseconds(2)

    /// How many writes the last batch had; 0 once the writer slept.
    private var lastBatch = 0
    /// How long the last transaction waited for the lock, at most the limit it was given.
    private var patience: Duration = .zero
    /// While the writer holds a batch back: how many writes queued behind it end the wait.
    private var wanted: Int?

    package init() {}

    /// Whether the writer is holding a batch back now.
    package var isHoldingBack: Bool { wanted != nil }

    /// A batch of `count` writes committed after waiting `lockWait` for the lock, `replayed`
    /// other instances' changes with it. None replayed: no other instance writes, and the wait
    /// was the round trip alone, which holding a batch back would only lengthen (an instance
    /// alone made 20% fewer creates so).
    package mutating func committed(batchOf count: Int, lockWait: Duration, replayed: Int, limit: Duration) {
        lastBatch = count
        patience = replayed > 0 ? min(max(lockWait, .zero), limit) : .zero
    }

    /// The writer went to sleep: the next write comes from a client that was not waiting.
    package mutating func writerSlept() {
        lastBatch = 0
    }

    /// With `queued` writes behind the batch taken: how long to hold the batch back, or nil
    /// to send it now. The wait is for the writes of the clients the last batch answered, as
    /// many as it had, to join this one; the writer then waits for `arrived` to say they
    /// are queued, or for the time to run out (`gaveUp`).
    package mutating func holdBack(queued: Int) -> Duration? {
        guard patience > .zero, queued < lastBatch else { return nil }
        wanted = lastBatch
        return patience
    }

    /// `queued` writes wait behind the batch held back now: true once, when that ends the
    /// writer's wait (the caller wakes it).
    package mutating func arrived(queued: Int) -> Bool {
        guard let wanted, queued >= wanted else { return false }
        self.wanted = nil
        return true
    }

    /// The writer's wait ran out: false when no wake is coming, true when `arrived` said the
    /// wait was over meanwhile (the writer takes that wake, which is on its way).
    package mutating func gaveUp() -> Bool {
        guard wanted != nil else { return true }
        wanted = nil
        return false
    }
}
