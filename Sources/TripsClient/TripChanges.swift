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
/// its task is cancelled; it throws when the server refuses to stream (401, 406).
public struct TripChanges: AsyncSequence, Sendable {
    public typealias Element = TripChangeEvent

    let client: TripsClient
    let since: UInt64?

    /// How long the stream may be silent before it counts as lost: four of the server's
    /// default heartbeats.
    static let idleTimeout: TimeInterval = 60

    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, lastEventID: since.map(String.init))
    }

    public struct Iterator: AsyncIteratorProtocol {
        let client: TripsClient
        /// What the next connection sends as `Last-Event-ID`: the last event's id.
        private(set) var lastEventID: String?
        private var parts: AsyncThrowingStream<StreamingTask.Part, any Error>.AsyncIterator?
        private var parser = ServerSentEventParser()
        private var ready: [TripChangeEvent] = []
        /// The status of a connection that was not a stream, and its body so far.
        private var refusal: (status: Int, body: [UInt8])?
        /// Failed connections in a row, for the backoff.
        private var failures = 0

        init(client: TripsClient, lastEventID: String?) {
            self.client = client
            self.lastEventID = lastEventID
        }

        public mutating func next() async throws -> TripChangeEvent? {
            while true {
                if !ready.isEmpty { return ready.removeFirst() }
                if Task.isCancelled { return nil }
                if parts == nil { connect() }
                do {
                    guard let part = try await parts?.next() else {
                        try await connectionEnded()
                        continue
                    }
                    try take(part)
                } catch let error as TripsClientError {
                    throw error
                } catch {
                    if Task.isCancelled { return nil }
                    try await backOff()
                }
            }
        }

        /// Opens a stream that resumes after `lastEventID`.
        private mutating func connect() {
            var request = URLRequest(url: ClientRequest(method: "GET", path: "/trips/changes").url(under: client.baseURL) ?? client.baseURL)
            request.timeoutInterval = TripChanges.idleTimeout
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            if let token = client.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            if let lastEventID { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
            parser = ServerSentEventParser()
            refusal = nil
            parts = StreamingTask.start(request).makeAsyncIterator()
        }

        private mutating func take(_ part: StreamingTask.Part) throws {
            switch part {
            case .head(let response) where response.statusCode == 200:
                break
            case .head(let response):
                refusal = (response.statusCode, [])
            case .bytes(let data) where refusal != nil:
                if let body = refusal?.body, body.count < 64 << 10 { refusal?.body = body + data }
            case .bytes(let data):
                let events: [ServerSentEventParser.Event]
                do {
                    events = try parser.feed(data)
                } catch {
                    throw TripsClientError.invalidAnswer("an event line longer than \(ServerSentEventParser.maxLineBytes) bytes")
                }
                for event in events {
                    if let id = event.id { lastEventID = id }
                    if let change = try TripChangeEvent(name: event.name, data: event.data) { ready.append(change) }
                    failures = 0
                }
            }
        }

        /// A stream that ended: a refusal throws (503 is tried again), anything else reconnects.
        private mutating func connectionEnded() async throws {
            if let refusal, refusal.status != 503 {
                throw TripsClientError(refusal: Problem(status: refusal.status, body: refusal.body))
            }
            try await backOff()
        }

        private mutating func backOff() async throws {
            parts = nil
            failures += 1
            try await client.retry.sleep(client.retry.delay(afterAttempt: failures))
        }
    }
}
