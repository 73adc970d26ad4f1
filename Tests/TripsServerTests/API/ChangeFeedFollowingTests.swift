import Testing
import TripsDomain
import TripsStore

@testable import TripsHTTP
@testable import TripsServer

/// A change is framed and handed to the event loops only while a stream follows the feed, or
/// is on its way to: a stream claims the hub before it reads where it starts, so none misses
/// a change between that read and its first message.
@Suite struct ChangeFeedFollowingTests {
    /// A feed on an in-memory store (changes complete at once), publishing to `mailbox`.
    private static func feed() throws -> (ChangeFeed, HTTPLoopMailbox, MemoryTripStore) {
        let store = MemoryTripStore(seedSamples: true)
        let feed = ChangeFeed(store: store)
        let mailbox = try HTTPLoopMailbox()
        feed.hub.attach([mailbox])
        return (feed, mailbox, store)
    }

    private static func favorite(_ id: Trip.ID, in store: MemoryTripStore) {
        store.mutate({ _ in .setFavorite(id, true) }) { _ in }
    }

    @Test func theHubIsFollowedWhileAClaimLives() {
        let hub = HTTPStreamHub()
        #expect(!hub.isFollowed)
        var claims = [hub.follow(), hub.follow()]
        #expect(hub.isFollowed)
        claims.removeFirst()
        #expect(hub.isFollowed)
        claims.removeAll()
        #expect(!hub.isFollowed)
    }

    @Test func aChangeNoStreamFollowsIsNotPublished() throws {
        let (feed, mailbox, store) = try Self.feed()
        withExtendedLifetime(feed) { Self.favorite(3, in: store) }  // the store holds its listener weakly
        #expect(mailbox.take().streamMessages.isEmpty)
    }

    @Test func aStreamAboutToStartGetsEveryChangeAfterItsStartAndNoneOnceItEnds() throws {
        let (feed, mailbox, store) = try Self.feed()
        var reply: HTTPReply? = try feed.stream(since: nil)
        guard case .stream(_, let start) = reply else {
            Issue.record("not a stream")
            return
        }
        // The stream has not reached a loop yet: the change after its start is published anyway.
        Self.favorite(3, in: store)
        let published = mailbox.take().streamMessages
        #expect(published.map(\.sequence) == [start.sequence + 1])
        #expect(String(decoding: try #require(published.first).bytes, as: UTF8.self).contains("event: favorites"))
        reply = nil
        _ = consume start
        Self.favorite(4, in: store)
        #expect(mailbox.take().streamMessages.isEmpty, "the stream never started: nothing follows the hub")
    }
}
