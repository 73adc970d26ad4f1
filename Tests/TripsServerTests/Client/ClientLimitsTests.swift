import Foundation
import Synchronization
import Testing
import TripsDomain

@testable import TripsClient

/// A broken or hostile server can neither fill the client's memory nor hold it forever:
/// answers and events are bounded while they are read, every request has a deadline, and a
/// silent change feed is connected again. Time is the tests' own (`ClientLimits.sleep`).
@Suite struct ClientLimitsTests {
    /// The error `body` ends with, or nil.
    private func failure(_ body: @escaping @Sendable () async throws -> Void) async throws -> TripsClientError? {
        try await within(seconds: 10) {
            do {
                try await body()
                return nil
            } catch let error as TripsClientError {
                return error
            }
        }
    }

    private static let streamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n"

    private static func deleted(_ revision: Int, _ id: Int) -> String {
        "id: \(revision)\nevent: deleted\ndata: {\"revision\":\(revision),\"ids\":[\(id)]}\n\n"
    }

    @Test func anAnswerAnnouncedLargerThanTheLimitIsRefusedBeforeItsBody() async throws {
        let server = try HostileServer { _, _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(100 << 20)\r\n\r\n[")
        }
        defer { server.stop() }
        let client = TripsClient(baseURL: server.url, retry: RetryPolicy { _ in })
        let error = try await failure { _ = try await client.list() }
        #expect(error == .answerTooLarge(limit: 64 << 20))
    }

    @Test func aChunkedAnswerIsCancelledAsSoonAsItPassesTheLimit() async throws {
        let server = try HostileServer { _, _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = "10000\r\n" + String(repeating: " ", count: 0x10000) + "\r\n"
            // Four times the limit, and no last chunk: the answer never ends.
            for _ in 0..<64 where connection.write(chunk) {}
        }
        defer { server.stop() }
        let client = TripsClient(baseURL: server.url, retry: RetryPolicy { _ in }, limits: ClientLimits(maxAnswerBytes: 1 << 20))
        let error = try await failure { _ = try await client.list() }
        #expect(error == .answerTooLarge(limit: 1 << 20))
    }

    @Test func aServerThatNeverAnswersTimesOutAndTheChangeIsTriedAgainWithItsKey() async throws {
        let server = try HostileServer { _, _, _ in }  // reads the request, then says nothing
        defer { server.stop() }
        let timeouts = Mutex<[Duration]>([])
        // Each try's time runs out once the server has its request: no real waiting.
        let limits = ClientLimits(requestTimeout: .seconds(5)) { duration in
            let tries = timeouts.withLock { timeouts in
                timeouts.append(duration)
                return timeouts.count
            }
            await server.requests(tries)
        }
        let client = TripsClient(baseURL: server.url, retry: RetryPolicy(maxAttempts: 2) { _ in }, limits: limits)
        let error = try await failure { _ = try await client.create(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027") }
        #expect(error == .timedOut(after: .seconds(5)))
        #expect(timeouts.withLock { $0 } == [.seconds(5), .seconds(5)])
        let keys = server.heads.map { HostileServer.field("Idempotency-Key", in: $0) }
        #expect(keys.count == 2 && keys[0] != nil && keys[0] == keys[1])
    }

    @Test func anEventLargerThanTheLimitEndsTheConnectionWhichResumesAfterABackoff() async throws {
        let server = try HostileServer { number, _, connection in
            connection.write(Self.streamHead)
            if number == 1 {
                connection.write(Self.deleted(3, 1) + "data: " + String(repeating: "x", count: 4096))
            } else {
                connection.write(Self.deleted(4, 2))
            }
        }
        defer { server.stop() }
        let waits = ClientRetryTests.Waits()
        let client = TripsClient(baseURL: server.url, retry: waits.policy, limits: ClientLimits(maxEventBytes: 1024))
        let events = try await within(seconds: 10) {
            var feed = client.changes(since: 2).makeAsyncIterator()
            return [try await feed.next(), try await feed.next()]
        }
        #expect(events == [.deleted(revision: 3, ids: [1]), .deleted(revision: 4, ids: [2])])
        #expect(server.heads.count == 2 && HostileServer.field("Last-Event-ID", in: server.heads[1]) == "3")
        #expect(waits.recorded == [.milliseconds(250)])
    }

    @Test func aFeedWhoseEveryEventIsTooLargeThrowsOnceTheRetriesAreSpent() async throws {
        let server = try HostileServer { _, _, connection in
            connection.write(Self.streamHead + "data: " + String(repeating: "x", count: 4096))
        }
        defer { server.stop() }
        let waits = ClientRetryTests.Waits()
        let client = TripsClient(baseURL: server.url, retry: waits.policy, limits: ClientLimits(maxEventBytes: 1024))
        let error = try await failure {
            var feed = client.changes().makeAsyncIterator()
            _ = try await feed.next()
        }
        #expect(error == .eventTooLarge(limit: 1024))
        #expect(server.heads.count == 4)
        #expect(waits.recorded == [.milliseconds(250), .milliseconds(500), .seconds(1)])
    }

    @Test func aSilentFeedIsConnectedAgainFromItsLastEvent() async throws {
        let server = try HostileServer { number, _, connection in
            connection.write(Self.streamHead + Self.deleted(number + 2, number))  // then silence
        }
        defer { server.stop() }
        let silences = Mutex<[Duration]>([])
        let clock = AsyncLimit(0)  // each silence wait ends when the test lets one pass
        let limits = ClientLimits(feedSilence: .seconds(30)) { duration in
            silences.withLock { $0.append(duration) }
            await clock.take()
        }
        let waits = ClientRetryTests.Waits()
        let client = TripsClient(baseURL: server.url, retry: waits.policy, limits: limits)
        let events = try await within(seconds: 10) {
            var feed = client.changes(since: 2).makeAsyncIterator()
            let first = try await feed.next()
            // Bytes came during the first wait; none during the second: the connection is dead.
            clock.giveBack()
            clock.giveBack()
            return [first, try await feed.next()]
        }
        #expect(events == [.deleted(revision: 3, ids: [1]), .deleted(revision: 4, ids: [2])])
        #expect(server.heads.count == 2 && HostileServer.field("Last-Event-ID", in: server.heads[1]) == "3")
        #expect(waits.recorded == [.milliseconds(250)])
        #expect(silences.withLock { $0 }.allSatisfy { $0 == .seconds(30) })
    }
}
