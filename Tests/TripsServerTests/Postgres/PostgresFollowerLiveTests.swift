import Foundation
import Synchronization
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// The follower of a `PostgresTripStore` against the real server: it rests while its writer
/// stays busy (the writer's transactions catch up instead), and listens again once the writer
/// goes to sleep.
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
            // Resting as soon as it finds the writer busy, not after 20 ms of it.
            let second = try PostgresTripStore(
                connection: database.configuration, seedSamples: false, pollInterval: .seconds(30), restAfterBusy: .zero)
            defer { second.close() }
            // Changes without waiting for them keep the writer busy (a second and more) far longer
            // than the follower goes without looking (a notification, or 200 ms at most).
            let answered = DispatchGroup()
            for index in 0..<3_000 {
                answered.enter()
                second.mutate({ _ in .add(storageDraft("Busy \(index)")) }) { _ in answered.leave() }
            }
            #expect(answered.wait(timeout: .now() + .seconds(60 * TestTimeout.scale)) == .success)
            #expect(second.state.withLock { $0.followerRestCount } >= 1, "the follower rested while the writer was busy")

            // The writer sleeps: the follower listens again, and hears the other instance.
            let feed = FeedRecorder(second)
            let made = try mutateWaiting(first) { _ in .add(storageDraft("Heard")) }.get()
            #expect(feed.wait(through: made.revision), "the change reached the feed without a poll")
            #expect(second.list == first.list)
        }
    }
}
