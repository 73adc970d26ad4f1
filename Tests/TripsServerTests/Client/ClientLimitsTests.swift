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
        try await within(seconds: 60) {
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

    /// The flood ends only when the client hangs up. (This test once hung: its client's
    /// deadline was a real 60 s timer and the server's waits could not be cancelled, so its
    /// bound could not end it. Now the deadline is the test's own time, which never passes
    /// here, and every wait ends when `within` gives up.)
    @Test func aChunkedAnswerIsCancelledAsSoonAsItPassesTheLimit() async throws {
        let server = try HostileServer { _, _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Array(("10000\r\n" + String(repeating: " ", count: 0x10000) + "\r\n").utf8)
            // Four times the limit, and no last chunk: the answer never ends by itself.
            for _ in 0..<64 where !connection.write(chunk) { return }
        }
        defer { server.stop() }
        let limits = ClientLimits(maxAnswerBytes: 1 << 20, sleep: TestTime().wait)
        let client = TripsClient(baseURL: server.url, retry: RetryPolicy { _ in }, limits: limits)
        let error = try await failure { _ = try await client.list() }
        #expect(error == .answerTooLarge(limit: 1 << 20))
        try await within(seconds: 60) { await server.closed(1) }  // the client hung up
    }

    /// A reader that takes one event and then nothing while the server floods: the client
    /// holds at most `maxBufferedBytes` for it, hangs up, and once the reader comes back it
    /// gets every event that had arrived, then the rest from a new connection that resumes
    /// from the last one it got, with no gap and no event twice.
    @Test func aReaderThatStopsReadingMakesTheClientHangUpNotGrow() async throws {
        let server = try HostileServer { number, head, connection in
            connection.write(Self.streamHead)
            guard number == 1 else {
                let last = HostileServer.field("Last-Event-ID", in: head).flatMap { Int($0) } ?? 0
                connection.write((1...3).map { Self.deleted(last + $0, last + $0) }.joined())
                return
            }
            // 1,000 events a write, as fast as the socket takes them: 200 times what the client holds.
            for first in stride(from: 3, to: 200_000, by: 1_000)
            where !connection.write((first..<first + 1_000).map { Self.deleted($0, $0) }.joined()) { return }
        }
        defer { server.stop() }
        let limits = ClientLimits(maxBufferedBytes: 64 << 10, maxPendingEvents: 16, sleep: TestTime().wait)
        let client = TripsClient(baseURL: server.url, retry: RetryPolicy { _ in }, limits: limits)
        let (revisions, resumedFrom) = try await within(seconds: 60) {
            var feed = client.changes(since: 2).makeAsyncIterator()
            guard let first = try await feed.next() else { throw TestFailure("the feed ended") }
            var revisions = [first.revision]
            await server.closed(1)  // the client hung up, though its reader took one event only
            while true {
                guard let event = try await feed.next() else { throw TestFailure("the feed ended") }
                revisions.append(event.revision)
                if server.heads.count == 2,
                    let resumedFrom = HostileServer.field("Last-Event-ID", in: server.heads[1]).flatMap(UInt64.init),
                    event.revision == resumedFrom + 3
                {
                    return (revisions, resumedFrom)
                }
            }
        }
        #expect(revisions == Array(3...resumedFrom + 3))
        // The reader got what the client held for it: at most 64 KiB unread, and the part it
        // had taken when it stopped.
        let eventBytes = Self.deleted(100_000, 100_000).utf8.count
        #expect(Int(resumedFrom - 2) * eventBytes <= (64 << 10) + (256 << 10))
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
        let events = try await within(seconds: 60) {
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
        let time = TestTime()  // each silence wait ends when the test lets one pass
        let limits = ClientLimits(feedSilence: .seconds(30), sleep: time.wait)
        let waits = ClientRetryTests.Waits()
        let client = TripsClient(baseURL: server.url, retry: waits.policy, limits: limits)
        let events = try await within(seconds: 60) {
            var feed = client.changes(since: 2).makeAsyncIterator()
            let first = try await feed.next()
            // Bytes came during the first wait; none during the second: the connection is dead.
            time.pass()
            time.pass()
            return [first, try await feed.next()]
        }
        #expect(events == [.deleted(revision: 3, ids: [1]), .deleted(revision: 4, ids: [2])])
        #expect(server.heads.count == 2 && HostileServer.field("Last-Event-ID", in: server.heads[1]) == "3")
        #expect(waits.recorded == [.milliseconds(250)])
        #expect(time.waits.allSatisfy { $0 == .seconds(30) })
    }
}
