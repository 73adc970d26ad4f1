import Foundation
import Synchronization
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// The follower of a `PostgresTripStore` against the real server: it rests while its writer
/// is busy (the writer's transactions catch up instead), and listens again once the writer
/// has slept for `listenAfterIdle`.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresFollowerLiveTests {
    /// A store kept busy by a stream of changes stops listening; once the stream ends and its
    /// writer sleeps, it listens again: another instance's change reaches its feed well within
    /// its poll interval (and its rest's longest wait) of 30 s, which only a notification can do.
    @Test func theFollowerRestsWhileItsWriterIsBusyAndListensAgainOnceItSleeps() async throws {
        try await onOwnThread {
            let database = try LiveDatabase.createDatabase(named: "trips_follower")
            defer { database.drop() }
            let first = try PostgresTripStore(connection: database.configuration, seedSamples: false)
            defer { first.close() }
            let second = try PostgresTripStore(connection: database.configuration, seedSamples: false, pollInterval: .seconds(30))
            defer { second.close() }
            // Changes without waiting for them keep the writer busy (a second and more) far longer
            // than the follower goes without looking (a notification, or 200 ms at most).
            let answered = Self.submitCreates(3_000, named: "Busy", to: second)
            #expect(answered.wait(timeout: .now() + .seconds(60 * TestTimeout.scale)) == .success)
            #expect(second.state.withLock { $0.followerRestCount } >= 1, "the follower rested while the writer was busy")

            // The writer sleeps: the follower listens again, and hears the other instance.
            let feed = FeedRecorder(second)
            let made = try mutateWaiting(first) { _ in .add(storageDraft("Heard")) }.get()
            #expect(feed.wait(through: made.revision), "the change reached the feed without a poll")
            #expect(second.list == first.list)
        }
    }

    /// A writer that sleeps and is busy again before `listenAfterIdle` (as under load, between
    /// batches) keeps the follower resting: it listens once, at start, through two streams of
    /// changes with the writer asleep between them.
    @Test func aWriterAwakeAgainWithinTheGraceKeepsTheFollowerResting() async throws {
        try await onOwnThread {
            let database = try LiveDatabase.createDatabase(named: "trips_follower_grace")
            defer { database.drop() }
            let store = try PostgresTripStore(
                connection: database.configuration, seedSamples: false, pollInterval: .seconds(30),
                listenAfterIdle: .seconds(60 * TestTimeout.scale))
            defer { store.close() }
            let stream = { (name: String) in
                let answered = Self.submitCreates(1_000, named: name, to: store)
                #expect(answered.wait(timeout: .now() + .seconds(60 * TestTimeout.scale)) == .success)
            }
            stream("First")
            #expect(store.state.withLock { $0.followerRestCount } >= 1, "the follower rested while the writer was busy")
            // The writer goes to sleep, and leaves the follower resting: woken now, it would
            // look again, and without the grace listen again long before the next stream ends.
            guard yieldUntil({ store.state.withLock { !$0.isWriterBusy } }) else {
                Issue.record("the writer did not go to sleep")
                return
            }
            #expect(store.state.withLock { $0.followerRests }, "the writer's sleep woke the follower")
            stream("Second")
            #expect(store.state.withLock { $0.followerListenCount } == 1, "listened at start only")
            #expect(store.list.count == 2_000)
        }
    }

    /// A store closed while its follower rests for a busy writer is not kept waiting for
    /// `listenAfterIdle` (a minute here): `close` wakes the follower, which stops at once.
    @Test func closingWhileTheFollowerRestsDoesNotWaitForTheGrace() async throws {
        try await onOwnThread {
            let database = try LiveDatabase.createDatabase(named: "trips_follower_close")
            defer { database.drop() }
            let store = try PostgresTripStore(
                connection: database.configuration, seedSamples: false, pollInterval: .seconds(30),
                listenAfterIdle: .seconds(60))
            let answered = Self.submitCreates(3_000, named: "Busy", to: store)
            guard yieldUntil({ store.state.withLock { $0.followerRests } }) else {
                Issue.record("the follower did not rest while the writer was busy")
                store.close()
                return
            }
            let closing = ContinuousClock.now
            store.close()
            #expect(ContinuousClock.now - closing < .seconds(30), "close waited for the follower's grace")
            #expect(answered.wait(timeout: .now()) == .success, "every write was answered by close")
        }
    }

    /// Submits `count` creates without waiting for them (they keep the writer busy); the group
    /// is left once each is answered.
    static func submitCreates(_ count: Int, named name: String, to store: PostgresTripStore) -> DispatchGroup {
        let answered = DispatchGroup()
        for index in 0..<count {
            answered.enter()
            store.mutate({ _ in .add(storageDraft("\(name) \(index)")) }) { _ in answered.leave() }
        }
        return answered
    }
}
