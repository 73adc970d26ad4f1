import Foundation
import Synchronization
import TripsDomain
import TripsPlatform
import TripsPostgres

/// The follower thread: it listens on the changes channel and catches the list up with what
/// other instances wrote.
extension PostgresTripStore {
    /// Listens for other instances' changes on a connection of its own and has the writer
    /// catch up; reconnects with backoff when the connection breaks. While the writer stays
    /// busy, it rests instead (`rest(on:)`).
    package func runFollower() {
        var listening: PostgresConnection?
        var lastLook = ContinuousClock.now
        while !state.withLock({ $0.isClosing }) {
            if listening == nil {
                do {
                    listening = try listen()
                    setUnreachable(nil)
                    requestCatchUp()  // whatever happened while no one listened
                } catch {
                    setUnreachable(.database(reason: "\(error)"))
                    let wait = max(pool.backoffRemaining, .milliseconds(1))
                    _ = followerWake.wait(timeout: .now() + .nanoseconds(Int(clamping: wait.nanoseconds)))
                    continue
                }
            }
            do {
                // Short waits, so that `close` never waits long for this thread.
                let notifications = try listening?.waitForNotifications(timeout: min(pollInterval, .milliseconds(200))) ?? []
                let (known, isWriterBusy) = state.withLock { ($0.tables.list.revision, $0.isWriterBusy) }
                if isWriterBusy, let connection = listening {
                    try rest(on: connection)
                    lastLook = .now
                    continue
                }
                if notifications.contains(where: { UInt64($0.payload).map { $0 > known } ?? true }) || .now - lastLook >= pollInterval {
                    lastLook = .now
                    requestCatchUp()
                }
            } catch {
                stopListening(&listening)
            }
        }
        stopListening(&listening)
        followerStopped.signal()
    }

    /// Stops listening while the writer is busy: its transactions catch up on the other
    /// instances' changes (and hand them to the feed as they are read), so a notification of
    /// each would only wake this thread, and cost PostgreSQL a signal to this session (and a
    /// catching up of the writer's, between its batches), for every commit of every instance.
    ///
    /// Listens again once the writer has slept for `listenAfterIdle` (or when the store
    /// closes), and has it catch up on what was committed meanwhile; a writer awake again by
    /// then (the clients it answered sent their next changes) keeps it resting. Under load a
    /// writer sleeps between most batches, for less than a millisecond: listening again each
    /// time had four instances' PostgreSQL signal the followers of most commits, and their
    /// writers catch up between batches. `followerRests` is set before each wait, so a writer
    /// that goes to sleep at any point after that wakes it once it has slept for
    /// `listenAfterIdle` (`writerStayedIdle`). Woken at once instead, at each of those pauses,
    /// only to wait out the grace and find the writer busy again, it cost four instances two
    /// context switches and two and a half `futex` calls a transaction (of 11.5 and 4.7).
    package func rest(on connection: PostgresConnection) throws(PostgresConnectionError) {
        guard restsWhileTheWriterIsBusy() else { return }
        state.withLock { $0.followerRestCount += 1 }
        try connection.simpleQuery("UNLISTEN trips_changes")
        repeat {
            // The writer has slept for `listenAfterIdle` (it set `followerRests` false: only
            // `close` signals now); or a poll interval passed, and the writer, between two
            // batches at this instant, must still be asleep after as long.
            if followerWake.wait(timeout: .now() + .nanoseconds(Int(clamping: pollInterval.nanoseconds))) == .timedOut {
                guard !state.withLock({ $0.isClosing }) else { break }
                _ = followerWake.wait(timeout: .now() + .nanoseconds(Int(clamping: listenAfterIdle.nanoseconds)))
            }
            guard !state.withLock({ $0.isClosing }) else { break }
        } while restsWhileTheWriterIsBusy()
        try connection.simpleQuery("LISTEN trips_changes")
        state.withLock { $0.followerListenCount += 1 }
        requestCatchUp()
    }

    /// Whether the writer is busy (and the store open), so that the follower rests, to be woken
    /// when the writer goes to sleep.
    private func restsWhileTheWriterIsBusy() -> Bool {
        state.withLock { state in
            state.followerRests = state.isWriterBusy && !state.isClosing
            return state.followerRests
        }
    }

    /// A connection from the pool that listens on `PostgresTripTables.channel`. An idle
    /// connection the server ended meanwhile (a restart) fails its first statement and is
    /// dropped: the next one is tried, until the pool opens a new one.
    package func listen() throws(PostgresStoreError) -> PostgresConnection {
        var attempts = 0
        while true {
            let connection: PostgresConnection
            do {
                connection = try pool.lease(waitingUpTo: Self.leaseTimeout)
            } catch {
                throw .connections(error)
            }
            do {
                try connection.simpleQuery("LISTEN trips_changes")
                state.withLock { $0.followerListenCount += 1 }
                return connection
            } catch {
                let wasStale = !connection.isOpen
                pool.giveBack(connection)
                attempts += 1
                guard wasStale, attempts <= pool.capacity else { throw .database(error) }
            }
        }
    }

    /// Closes the listening connection before the pool takes it back: no one else is to
    /// receive its notifications.
    package func stopListening(_ listening: inout PostgresConnection?) {
        guard let connection = listening else { return }
        connection.close()
        pool.giveBack(connection)
        listening = nil
    }

    /// Records whether the database can be reached, and logs when that changes.
    package func setUnreachable(_ failure: StorageError?) {
        let previous = state.withLock { state -> StorageError? in
            defer { state.unreachable = failure }
            return state.unreachable
        }
        switch (previous, failure) {
        case (nil, let failure?): log.warning("\(failure); changes are refused until it is back, reads go on")
        case (_?, nil): log.info("PostgreSQL can be reached again")
        default: break
        }
    }

    package func requestCatchUp() {
        let wake = state.withLock { state -> Bool in
            state.needsCatchUp = true
            return state.writerWake.request()
        }
        if wake { writer.wake() }
    }
}
