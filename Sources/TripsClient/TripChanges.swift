import Foundation
import TripsDomain

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension TripsClient {
    /// Every change to the list after revision `since` (nil: from now), as it is made:
    /// server-sent events from `GET /trips/changes`. After a disconnect (or a server
    /// restart) it connects again with `Last-Event-ID`, backing off as `retry` says, and
    /// goes on with no gap and no duplicate; when the server cannot tell the missed changes
    /// one by one it yields `.reset`, after which the list must be read again.
    ///
    ///     for try await change in client.changes(since: list.revision) { apply(change) }
    public func changes(since: UInt64? = nil) -> TripChanges {
        TripChanges(client: self, since: since)
    }
}

/// The change feed as an `AsyncSequence` (`TripsClient.changes(since:)`). It ends only when
/// its task is cancelled; it throws when the server refuses to stream (401, 406), or sends an
/// event larger than `ClientLimits.maxEventBytes` on every try in a row.
///
/// A connection is given up, and made again with `Last-Event-ID`, when it breaks, when it
/// stays silent for `ClientLimits.feedSilence` (the server writes a keep-alive comment every
/// 15 s), or when an event passes the limit; each time after `RetryPolicy`'s backoff.
///
/// A reader that stops reading never makes the client grow: at most
/// `ClientLimits.maxPendingEvents` events wait decoded, and at most
/// `ClientLimits.maxBufferedBytes` bytes wait unread; past that the connection is ended (the
/// client does not stop the socket's reading, which URLSession cannot do on every platform),
/// and when the reader comes back for more, after the events that had arrived, it is made
/// again at once from the last event the reader got (`Last-Event-ID`): nothing is missed or told twice.
public struct TripChanges: AsyncSequence, Sendable {
    public typealias Element = TripChangeEvent

    let client: TripsClient
    let since: UInt64?

    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, lastEventID: since.map(String.init))
    }

    public struct Iterator: AsyncIteratorProtocol {
        let client: TripsClient
        /// What the next connection sends as `Last-Event-ID`: the last event's id.
        private(set) var lastEventID: String?
        private let streaming = StreamingSession()
        private var connection: StreamingSession.Answer?
        private var parts: StreamingSession.Parts.Iterator?
        private var parser: ServerSentEventParser
        /// Events decoded and not yet read, the next one last: at most `maxPendingEvents`.
        private var ready: [TripChangeEvent] = []
        /// The rest of a chunk that arrived, once `ready` had its fill from the part before.
        private var unparsed = Data()
        /// The status of a connection that was not a stream, and its body so far.
        private var refusal: (status: Int, body: [UInt8])?
        /// Failed connections in a row, for the backoff.
        private var failures = 0
        /// Connections in a row that ended on a too large event.
        private var oversized = 0
        /// Whether this connection has delivered an event: one that overflowed before any did
        /// made no progress (a server faster than the parser with an event longer than the
        /// buffer), and is made again only after a backoff, not at once and without end.
        private var delivered = false

        init(client: TripsClient, lastEventID: String?) {
            self.client = client
            self.lastEventID = lastEventID
            parser = ServerSentEventParser(maxEventBytes: client.limits.maxEventBytes)
        }

        public mutating func next() async throws -> TripChangeEvent? {
            while true {
                if let event = ready.popLast() { return event }
                if Task.isCancelled {
                    drop()
                    return nil
                }
                if parts == nil { connect() }
                do {
                    guard unparsed.isEmpty else {
                        try parse(unparsed)
                        continue
                    }
                    guard let part = try await parts?.next() else {
                        try await connectionEnded()
                        continue
                    }
                    try take(part)
                    // A refusal is read to its end, or to as much of it as is kept: a body that
                    // never ends had held the feed forever.
                    if let refusal, refusal.body.count >= Self.maxRefusalBytes { try await connectionEnded() }
                } catch let error as TripsClientError {
                    drop()
                    throw error
                } catch is StreamingSession.Overflow {
                    // Every event that arrived was read: resume from the last one.
                    if delivered { drop() } else { try await backOff() }
                } catch is EventTooLarge {
                    oversized += 1
                    guard oversized < client.retry.maxAttempts else {
                        drop()
                        throw TripsClientError.eventTooLarge(limit: client.limits.maxEventBytes)
                    }
                    try await backOff()
                } catch {
                    if Task.isCancelled {
                        drop()
                        return nil
                    }
                    try await backOff()
                }
            }
        }

        /// Opens a stream that resumes after `lastEventID`.
        private mutating func connect() {
            let limits = client.limits
            var request = URLRequest(url: ClientRequest(method: "GET", path: "/trips/changes").url(under: client.baseURL) ?? client.baseURL)
            // URLSession's own idle timeout, behind the feed's: never the one that ends a stream.
            request.timeoutInterval = limits.feedSilence.seconds * 2
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            if let token = client.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            if let lastEventID { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
            parser = ServerSentEventParser(maxEventBytes: limits.maxEventBytes)
            refusal = nil
            delivered = false
            let answer = streaming.start(request, maxBuffered: limits.maxBufferedBytes, silence: (limits.feedSilence, limits.sleep))
            connection = answer
            parts = answer.parts.makeAsyncIterator()
        }

        /// Ends the connection, if one is open.
        private mutating func drop() {
            connection?.cancel()
            connection = nil
            parts = nil
            unparsed = Data()
        }

        private mutating func take(_ part: StreamingSession.Part) throws {
            switch part {
            case .head(let response) where response.statusCode == 200:
                break
            case .head(let response):
                refusal = (response.statusCode, [])
            case .bytes(let data) where refusal != nil:
                if let body = refusal?.body { refusal?.body = body + data.prefix(Self.maxRefusalBytes - body.count) }
            case .bytes(let data):
                try parse(data)
            }
        }

        /// Decodes the events `data` completes, up to `maxPendingEvents`; the rest of it waits in `unparsed`.
        private mutating func parse(_ data: Data) throws {
            let (events, end) = parser.feed(data, maxEvents: client.limits.maxPendingEvents)
            unparsed = data[end...]
            var decoded: [TripChangeEvent] = []
            for event in events {
                if let id = event.id { lastEventID = id }
                if let change = try TripChangeEvent(name: event.name, data: event.data) { decoded.append(change) }
                failures = 0
                oversized = 0
            }
            ready = decoded.reversed()
            if !events.isEmpty { delivered = true }
            if parser.isTooLarge { throw EventTooLarge() }
        }

        /// The most of a refusal's body kept (its problem document).
        private static let maxRefusalBytes = 64 << 10

        /// A line or an event of the stream passed `ClientLimits.maxEventBytes`.
        private struct EventTooLarge: Error {}

        /// A stream that ended: a refusal throws (503 is tried again), anything else reconnects.
        private mutating func connectionEnded() async throws {
            if let refusal, refusal.status != 503 {
                drop()
                throw TripsClientError(refusal: Problem(status: refusal.status, body: refusal.body))
            }
            try await backOff()
        }

        private mutating func backOff() async throws {
            drop()
            failures += 1
            try await client.retry.sleep(client.retry.delay(afterAttempt: failures))
        }
    }
}
