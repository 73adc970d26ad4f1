import Foundation
import Testing
import TripsDomain

@testable import TripsClient

/// `changes(since:)`: server-sent events read into change events, resumed after a restart.
@Suite struct ClientChangeFeedTests {
    @Test(arguments: TestStore.all) func theFeedTellsEveryChangeAndResumesAfterTheServerRestarts(store: TestStore) async throws {
        try await ClientTestServer.with(store) { server in
            let retry = RetryPolicy(maxAttempts: 4) { _ in await Task.yield() }
            let client = TripsClient(baseURL: server.url, retry: retry)
            let start = try await client.list().revision ?? 0
            let (events, continuation) = AsyncStream.makeStream(of: TripChangeEvent.self)
            let following = Task {
                for try await event in client.changes(since: start) { continuation.yield(event) }
            }
            defer { following.cancel() }
            /// The feed's next event, or a failure after 10 s: no wait without a bound.
            @Sendable func next() async throws -> TripChangeEvent? {
                try await within(seconds: 60) { await events.first { _ in true } }
            }
            try await client.move([3], before: nil)
            #expect(try await next() == .reordered(revision: start + 1, difference: ReorderDifference(sources: [3], destination: .end)))
            try await server.restart()
            _ = try await client.makeFavorites([2])
            _ = try await client.create(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027")
            let after = [try await next(), try await next()]
            #expect(after.map { $0?.revision } == [start + 2, start + 3])
            guard case .favorites(_, let added, _)? = after[0], case .created(_, let trips, nil)? = after[1] else {
                throw TestFailure("unexpected events \(after)")
            }
            #expect(added == [2] && trips.map(\.city) == ["Lisbon"])
        }
    }

    @Test func aRevisionTheServerNoLongerHoldsIsAReset() async throws {
        try await ClientTestServer.with(.memory) { server in
            let client = TripsClient(baseURL: server.url)
            let event = try await within(seconds: 60) {
                var feed = client.changes(since: 999).makeAsyncIterator()
                return try await feed.next()
            }
            guard case .reset? = event else { throw TestFailure("not a reset: \(String(describing: event))") }
        }
    }

    @Test func eventsSplitAnywhereAreReadTheSame() throws {
        let stream = Array(
            "retry: 1000\n\n: keep-alive\n\nid: 7\nevent: deleted\ndata: {\"revision\":7,\"ids\":[1]}\n\r\nid: 8\r\nevent: reordered\r\ndata: {\"revision\":8,\"sources\":[2],\"destination\":\"end\"}\r\n\r\n"
                .utf8)
        var whole = ServerSentEventParser(maxEventBytes: 1 << 20)
        let expected = whole.feed(stream).events
        #expect(expected.map(\.id) == ["7", "8"] && expected.map(\.name) == ["deleted", "reordered"])
        for split in 0...stream.count {
            var parser = ServerSentEventParser(maxEventBytes: 1 << 20)
            let events = parser.feed(stream[..<split]).events + parser.feed(stream[split...]).events
            #expect(events == expected, "split at \(split)")
        }
        // At most one event at a time: each ends where the next is to be read from.
        var oneByOne = ServerSentEventParser(maxEventBytes: 1 << 20)
        var rest = stream[...]
        var events: [ServerSentEventParser.Event] = []
        while !rest.isEmpty {
            let (read, end) = oneByOne.feed(rest, maxEvents: 1)
            #expect(read.count <= 1)
            events += read
            rest = rest[end...]
        }
        #expect(events == expected)
        let changes = try expected.compactMap { try TripChangeEvent(name: $0.name, data: $0.data) }
        #expect(
            changes == [
                .deleted(revision: 7, ids: [1]), .reordered(revision: 8, difference: ReorderDifference(sources: [2], destination: .end)),
            ])
    }

    /// The client's move against the server's (`TripList.move`), for every small case.
    @Test func aMoveAppliedByTheClientMatchesTheServersRule() throws {
        let trips = TripList.samples.trips.prefix(5).map { $0 }
        for mask in 1..<(1 << trips.count) {
            let sources = trips.indices.filter { mask & (1 << $0) != 0 }.map { trips[$0].id }
            for destination in trips.map({ ReorderDifference.Destination.before($0.id) }) + [.end] {
                var server = TripList.samples
                try server.move(ReorderDifference(sources: sources, destination: destination))
                var client = Array(TripList.samples.trips)
                client.move(sources, to: destination)
                #expect(client.map(\.id) == server.trips.map(\.id), "\(sources) to \(destination)")
            }
        }
    }
}
