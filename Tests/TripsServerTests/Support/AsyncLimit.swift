import Synchronization

/// At most `limit` holders at once: `take()` waits (suspending, never blocking a thread)
/// until one gives its place back. The tests' bound on what is costly to run at once.
final class AsyncLimit: Sendable {
    private struct State {
        /// How many more may take a place now.
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ limit: Int) {
        state = Mutex(State(free: limit))
    }

    /// Returns once a place is free, holding it until `giveBack()`.
    func take() async {
        await withCheckedContinuation { continuation in
            let isFree = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if isFree { continuation.resume() }
        }
    }

    /// Gives a place back: to the longest waiter, if any.
    func giveBack() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
