import Synchronization
import Testing
import TripsTestSupport
@testable import TripsPostgres
@testable import TripsServer

/// The pool's backoff, with an injected clock and a connect that always fails.
@Suite struct PostgresConnectionPoolTests {
    @Test func afterAFailedConnectLeasesFailAtOnceUntilTheBackoffPasses() throws {
        let clock = ManualClock()
        let attempts = Atomic(0)
        let pool = PostgresConnectionPool(capacity: 2, retryDelay: .milliseconds(100), clock: clock) {
            () throws(PostgresConnectionError) in
            attempts.add(1, ordering: .relaxed)
            throw .closedByServer
        }
        func lease() -> PostgresPoolError? {
            do {
                _ = try pool.lease(waitingUpTo: .zero)
                return nil
            } catch {
                return error
            }
        }
        guard case .unreachable(.closedByServer)? = lease() else { throw TestFailure("the connect's error") }
        #expect(attempts.load(ordering: .relaxed) == 1)
        guard case .unreachable(.closedByServer)? = lease() else { throw TestFailure("the last error, again") }
        #expect(attempts.load(ordering: .relaxed) == 1, "no attempt within the backoff")
        #expect(pool.backoffRemaining == .milliseconds(100))

        clock.advance(by: .milliseconds(100))
        _ = lease()
        #expect(attempts.load(ordering: .relaxed) == 2)
        // The delay doubled.
        clock.advance(by: .milliseconds(150))
        _ = lease()
        #expect(attempts.load(ordering: .relaxed) == 2)
        clock.advance(by: .milliseconds(50))
        _ = lease()
        #expect(attempts.load(ordering: .relaxed) == 3)

        // Up to a quarter of a second, no more: a database back from a restart is used
        // again within that.
        for _ in 0..<10 {
            clock.advance(by: .seconds(10))
            _ = lease()
        }
        #expect(pool.backoffRemaining == .milliseconds(250))
        // Every failed lease gave its permit back: capacity is not used up by failures.
        clock.advance(by: .milliseconds(250))
        _ = lease()
        #expect(attempts.load(ordering: .relaxed) == 14)
    }
}

/// The pool over real connections.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresConnectionPoolLiveTests {
    private func pool(capacity: Int) throws -> PostgresConnectionPool {
        PostgresConnectionPool(try LiveDatabase.configuration(LiveDatabase.socketURL), capacity: capacity)
    }

    @Test func anIdleConnectionIsLentAgain() async throws {
        try await onOwnThread {
            let pool = try self.pool(capacity: 2)
            defer { pool.close() }
            let first = try pool.lease(waitingUpTo: .zero)
            pool.giveBack(first)
            let again = try pool.lease(waitingUpTo: .zero)
            #expect(again === first)
            #expect(try again.query("SELECT 1").rows == [["1"]])
            pool.giveBack(again)
        }
    }

    /// A connection the server ended takes the idle ones with it: after a restart they are
    /// all dead, and each would fail the lease that took it.
    @Test func aConnectionTheServerEndedDropsTheIdleOnes() async throws {
        try await onOwnThread {
            let pool = try self.pool(capacity: 3)
            defer { pool.close() }
            let idle = try pool.lease(waitingUpTo: .zero)
            let ended = try pool.lease(waitingUpTo: .zero)
            pool.giveBack(idle)
            ended.close()  // as a failure closes it
            pool.giveBack(ended)
            #expect(!idle.isOpen)
            let next = try pool.lease(waitingUpTo: .zero)
            #expect(next !== idle && next !== ended)
            #expect(try next.query("SELECT 1").rows == [["1"]])
            pool.giveBack(next)
        }
    }

    @Test func aConnectionGivenBackInsideATransactionOrBrokenIsClosedNotLent() async throws {
        try await onOwnThread {
            let pool = try self.pool(capacity: 1)
            defer { pool.close() }
            let inTransaction = try pool.lease(waitingUpTo: .zero)
            try inTransaction.simpleQuery("BEGIN")
            pool.giveBack(inTransaction)
            #expect(!inTransaction.isOpen)
            let broken = try pool.lease(waitingUpTo: .zero)
            #expect(broken !== inTransaction)
            broken.close()
            pool.giveBack(broken)
            let fresh = try pool.lease(waitingUpTo: .zero)
            #expect(fresh !== broken && fresh.isOpen)
            pool.giveBack(fresh)
        }
    }

    @Test func withEveryConnectionLeasedALeaseIsBusyAndAClosedPoolLendsNone() async throws {
        try await onOwnThread {
            let pool = try self.pool(capacity: 1)
            let only = try pool.lease(waitingUpTo: .zero)
            do throws(PostgresPoolError) {
                _ = try pool.lease(waitingUpTo: .milliseconds(1))
                Issue.record("a second connection was lent")
            } catch {
                guard case .busy(capacity: 1) = error else { throw error }
            }
            pool.close()
            pool.giveBack(only)
            #expect(!only.isOpen, "given back to a closed pool: closed")
            do throws(PostgresPoolError) {
                _ = try pool.lease(waitingUpTo: .zero)
                Issue.record("a closed pool lent a connection")
            } catch {
                guard case .closed = error else { throw error }
            }
        }
    }
}
