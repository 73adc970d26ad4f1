import Synchronization

/// The client's waits (`ClientLimits.sleep`, `RetryPolicy.sleep`) on time only the test moves:
/// a wait ends when the test lets one pass (`pass()`), or at once with `CancellationError` when
/// its task is cancelled, so that it never holds up what cancels it (`within`, a request's
/// deadline). Without `pass()`, time never passes.
final class TestTime: Sendable {
    private struct State {
        var passes = 0
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var lastID = 0
        var waits: [Duration] = []
    }

    private let state = Mutex(State())

    /// The durations waited for, in order.
    var waits: [Duration] { state.withLock { $0.waits } }

    /// Waits until the test lets this wait pass, or the task is cancelled (throws).
    @Sendable func wait(_ duration: Duration) async throws {
        let id = state.withLock { state in
            state.lastID += 1
            state.waits.append(duration)
            return state.lastID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.passes > 0 {
                        state.passes -= 1
                        return .success(())
                    }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    /// Lets the oldest wait end, or the next one to start when none is waiting.
    func pass() {
        let waiter = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.passes += 1
                return nil as CheckedContinuation<Void, any Error>?
            }
            return state.waiting.removeFirst().continuation
        }
        waiter?.resume()
    }
}
