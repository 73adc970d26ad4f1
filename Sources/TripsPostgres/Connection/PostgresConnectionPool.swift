import Dispatch
import Synchronization
import TripsPlatform

/// A few connections to one database, each lent to one thread at a time: the PostgreSQL
/// store's writer takes one for each transaction, its follower one to `LISTEN` on, and its
/// pruning one in the background.
///
///     let connection = try pool.lease(waitingUpTo: .seconds(5))
///     defer { pool.giveBack(connection) }
///
/// Idle connections are kept for the next lease; one that is still inside a transaction is
/// dropped when given back, and a new one is opened when needed. One that the server closed
/// is dropped with every idle one: a server that ended one session has most likely ended them
/// all (a restart), and each would otherwise fail the next lease that takes it.
/// After a failed connect, leases fail at once (`.unreachable`, with the error) until a delay
/// has passed: `retryDelay`, doubling with each failure up to `maximumRetryDelay`, so a
/// database that is down is not hammered (four connects a second at most) and one that
/// comes back is used again within a quarter of a second; the first success resets it.
package final class PostgresConnectionPool: Sendable {
    package let capacity: Int
    package let retryDelay: Duration
    package let maximumRetryDelay: Duration
    private let connect: @Sendable () throws(PostgresConnectionError) -> PostgresConnection
    private let clock: any ServerClock
    /// One permit per connection that may exist, leased or idle.
    private let permits: DispatchSemaphore
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var idle: [Lent] = []
        var isClosed = false
        /// When the next connect may be tried, after a failure, and that failure.
        var nextAttempt: MonotonicInstant?
        var lastError: PostgresConnectionError?
        var delay: Duration
    }

    /// A connection in the pool's keeping. Unchecked: the pool hands each to one thread at a
    /// time, which alone uses it until it gives it back.
    private struct Lent: @unchecked Sendable {
        let connection: PostgresConnection
    }

    package init(
        capacity: Int, retryDelay: Duration = .milliseconds(100), maximumRetryDelay: Duration = .milliseconds(250),
        clock: any ServerClock = SystemClock(), connect: @escaping @Sendable () throws(PostgresConnectionError) -> PostgresConnection
    ) {
        self.capacity = capacity
        self.retryDelay = retryDelay
        self.maximumRetryDelay = max(maximumRetryDelay, retryDelay)
        self.clock = clock
        self.connect = connect
        permits = DispatchSemaphore(value: capacity)
        state = Mutex(State(delay: retryDelay))
    }

    package convenience init(_ configuration: PostgresConnectionConfiguration, capacity: Int, retryDelay: Duration = .milliseconds(100)) {
        self.init(capacity: capacity, retryDelay: retryDelay) { () throws(PostgresConnectionError) in
            try PostgresConnection.connect(configuration)
        }
    }

    /// An idle connection, or a new one; waits up to `timeout` while all `capacity` are leased.
    package func lease(waitingUpTo timeout: Duration) throws(PostgresPoolError) -> PostgresConnection {
        guard permits.wait(timeout: .now() + .nanoseconds(Int(clamping: timeout.nanoseconds))) == .success else {
            throw .busy(capacity: capacity)
        }
        enum Next {
            case reuse(PostgresConnection)
            case open
            case refuse(PostgresPoolError)
        }
        let now = clock.now()
        let next = state.withLock { state -> Next in
            guard !state.isClosed else { return .refuse(.closed) }
            while let lent = state.idle.popLast() {
                if lent.connection.isOpen { return .reuse(lent.connection) }
            }
            if let nextAttempt = state.nextAttempt, now < nextAttempt, let lastError = state.lastError {
                return .refuse(.unreachable(lastError))
            }
            return .open
        }
        switch next {
        case .reuse(let connection):
            return connection
        case .refuse(let error):
            permits.signal()
            throw error
        case .open:
            do {
                let connection = try connect()
                state.withLock { state in
                    state.nextAttempt = nil
                    state.lastError = nil
                    state.delay = retryDelay
                }
                return connection
            } catch {
                state.withLock { state in
                    state.nextAttempt = clock.now() + state.delay
                    state.lastError = error
                    state.delay = min(state.delay * 2, maximumRetryDelay)
                }
                permits.signal()
                throw .unreachable(error)
            }
        }
    }

    /// Takes a leased connection back: kept for the next lease when it is open and outside
    /// any transaction, closed otherwise; one the server closed takes the idle ones with it.
    package func giveBack(_ connection: PostgresConnection) {
        let wasEnded = !connection.isOpen
        let keep = !wasEnded && connection.transactionStatus == .idle
        let (kept, dropped) = state.withLock { state -> (Bool, [Lent]) in
            guard !wasEnded else {
                defer { state.idle = [] }
                return (false, state.idle)
            }
            guard keep, !state.isClosed else { return (false, []) }
            state.idle.append(Lent(connection: connection))
            return (true, [])
        }
        if !kept { connection.close() }
        for lent in dropped { lent.connection.close() }
        permits.signal()
    }

    /// How long until a connect may be tried again; zero when it may now.
    package var backoffRemaining: Duration {
        let now = clock.now()
        let nextAttempt = state.withLock { $0.nextAttempt }
        guard let nextAttempt else { return .zero }
        return .nanoseconds(nextAttempt.nanoseconds(since: now))
    }

    /// Closes the idle connections; leased ones are closed as they are given back, and leases
    /// from now on fail with `.closed`. Idempotent.
    package func close() {
        let idle = state.withLock { state -> [Lent] in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        for lent in idle { lent.connection.close() }
    }
}
