import Foundation
import Testing
import TripsDomain

@testable import TripsClient

/// What a hostile server sent the `trips` tool that it took as it came (found from outside):
/// a redirect to another origin, which carried the token there, and an event of a name it does
/// not know, which ended the feed.
@Suite struct ClientHostileAnswersTests {
    /// What `body` answered, or the error it threw as text, within the tests' bound.
    private func outcome(_ body: @escaping @Sendable () async throws -> String) async throws -> String {
        try await within(seconds: 60) {
            do {
                return try await body()
            } catch {
                return "\(error)"
            }
        }
    }

    @Test func aRedirectIsNotFollowedAndTheTokenStaysHome() async throws {
        let elsewhere = try HostileServer { _, _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]")
        }
        defer { elsewhere.stop() }
        let server = try HostileServer { _, _, connection in
            connection.write("HTTP/1.1 307 Temporary Redirect\r\nLocation: \(elsewhere.url)/trips\r\nContent-Length: 0\r\n\r\n")
        }
        defer { server.stop() }
        let client = TripsClient(baseURL: server.url, token: "SECRET-TOKEN-0123456789", retry: RetryPolicy { _ in })
        let outcome = try await outcome {
            _ = try await client.list()
            return "answered"
        }
        #expect(outcome != "answered")
        #expect(elsewhere.heads.isEmpty, "the other origin was asked: \(elsewhere.heads)")
        #expect(server.heads.count == 1)
    }

    /// An event longer than the feed's buffer, sent faster than it is parsed, overflows the
    /// buffer before any event arrives: the connection is made again after a backoff, not at
    /// once (it had reconnected about ten times a second, without end).
    @Test func aFeedThatOverflowsBeforeAnyEventBacksOff() async throws {
        let server = try HostileServer { _, _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: " + String(repeating: "x", count: 1 << 20))
        }
        defer { server.stop() }
        let waits = ClientRetryTests.Waits()
        let limits = ClientLimits(maxEventBytes: 8 << 20, maxBufferedBytes: 1024)
        let client = TripsClient(baseURL: server.url, retry: waits.policy, limits: limits)
        let feed = Task {
            var feed = client.changes().makeAsyncIterator()
            _ = try await feed.next()
        }
        try await within(seconds: 60) { await server.requests(3) }
        feed.cancel()
        #expect(waits.recorded.prefix(2) == [.milliseconds(250), .milliseconds(500)])
    }

    /// A server whose every page is the same, `next` link and all, is not asked again and
    /// again (the listing had grown past 2 GB).
    @Test func aPageThatDoesNotMovePastItsCursorEndsTheListing() async throws {
        let page =
            #"[{"id":1,"city":"Oslo","country":"Norway","nights":2,"isFavorite":false,"imageName":"","price":1,"#
            + #""start":"2027-06-01T00:00:00Z","notes":""}]"#
        let server = try HostileServer { _, _, connection in
            connection.write(
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\nLink: </trips?limit=1&after=1>; rel=\"next\"\r\n"
                    + "Content-Length: \(page.utf8.count)\r\n\r\n\(page)")
        }
        defer { server.stop() }
        let client = TripsClient(baseURL: server.url, retry: RetryPolicy { _ in })
        let outcome = try await outcome {
            var count = 0
            for try await _ in client.trips(TripQuery(), pageSize: 1) { count += 1 }
            return "ended after \(count)"
        }
        #expect(outcome.contains("holds it again"), "\(outcome)")
        #expect(server.heads.count == 2)
    }

    /// A refusal of the feed whose body never ends is thrown once the part of it kept has
    /// arrived, not held until the connection ends (`watch` had hung forever).
    @Test func aRefusalWithoutEndIsThrownOnceItsProblemIsRead() async throws {
        let server = try HostileServer { _, _, connection in
            connection.write("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/problem+json\r\n\r\n{\"status\":401,\"detail\":\"")
            while connection.write(String(repeating: "x", count: 1 << 16)) {}
        }
        defer { server.stop() }
        let client = TripsClient(baseURL: server.url, retry: RetryPolicy { _ in })
        let outcome = try await within(seconds: 60) { () -> String in
            do {
                var feed = client.changes().makeAsyncIterator()
                _ = try await feed.next()
                return "no refusal"
            } catch let error as TripsClientError {
                // Not by the bound's cancelling (which also ends the connection).
                return Task.isCancelled ? "held until cancelled" : error.problem.map { "\($0.status)" } ?? "\(error)"
            }
        }
        #expect(outcome == "401")
        #expect(server.heads.count == 1)
    }

    @Test func anEventOfAnUnknownNameIsSkippedWhateverItsData() async throws {
        let server = try HostileServer { _, _, connection in
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: ping\ndata: {}\n\n"
                    + "id: 3\nevent: deleted\ndata: {\"revision\":3,\"ids\":[1]}\n\n")
        }
        defer { server.stop() }
        let client = TripsClient(baseURL: server.url, retry: RetryPolicy { _ in })
        let event = try await within(seconds: 60) {
            var feed = client.changes(since: 2).makeAsyncIterator()
            return try await feed.next()
        }
        #expect(event == .deleted(revision: 3, ids: [1]))
    }
}
