import Synchronization

/// Collects every event loop's `LoopMetrics` for a scrape: it asks each loop through its
/// mailbox (the loop answers with a copy between two turns) and hands over the sum once
/// all have answered. The request path never waits for it.
package final class HTTPServerMetrics: Sendable {
    private let mailboxes = Mutex<[HTTPLoopMailbox]>([])

    package init() {}

    /// The event loops to ask (set by the server when it starts).
    func attach(_ loops: [HTTPLoopMailbox]) {
        mailboxes.withLock { $0 = loops }
    }

    /// Calls `done` with the sum of every loop's metrics (nil before the server starts).
    package func collect(_ done: @escaping @Sendable (LoopMetrics?) -> Void) {
        let loops = mailboxes.withLock { $0 }
        guard !loops.isEmpty else { return done(nil) }
        let gathered = Mutex<(sum: LoopMetrics?, answers: Int)>((nil, 0))
        for mailbox in loops {
            mailbox.requestReport { metrics in
                let finished = gathered.withLock { state -> LoopMetrics?? in
                    state.sum = state.sum.map { $0.adding(metrics) } ?? metrics
                    state.answers += 1
                    return state.answers == loops.count ? .some(state.sum) : .none
                }
                if let sum = finished { done(sum) }
            }
        }
    }
}
