import Dispatch
import Synchronization
import TripsDomain
import TripsFormats
import TripsHTTP
import TripsPlatform
import TripsStore

/// `GET /trips/changes`: every durable change, in order, to every client that follows it,
/// as server-sent events or by long polling, with resumption from any revision the history
/// still holds. The trigger a client needs for its success feedback, on every device.
///
/// The store tells the feed each change under its lock; the feed frames it once and the
/// stream hub hands the same bytes to every event loop. A stream's backlog is read under the
/// same lock, so the backlog and the live messages meet without a gap or a duplicate.
final class ChangeFeed: Sendable {
    let hub: HTTPStreamHub
    let store: any TripStoring
    /// Most streams open at once; past it, 503.
    let maxSubscribers: Int
    private let clock: any SchedulingClock
    /// A long poll waiting for the next change after `since`, with what it accepts (for a 410).
    private typealias Waiter = (responder: HTTPResponder, since: UInt64, accept: [String])
    /// Long polls waiting, by waiter id.
    private let waiters = Mutex<[UInt64: Waiter]>([:])
    private let nextWaiter = Atomic<UInt64>(0)
    /// Reads waiting for this server to reach a revision (read your writes), by waiter id.
    private let catchUps = Mutex<[UInt64: (revision: UInt64, resume: @Sendable (Bool) -> Void)]>([:])

    /// How long a client waits before reconnecting, sent first on every stream.
    static let retryMilliseconds = 2_000
    /// The longest `?wait=` a long poll may ask for, in seconds.
    static let maxWait = 60
    /// `maxSubscribers` unless told otherwise (`--max-subscribers`).
    static let defaultMaxSubscribers = 10_000

    /// `maxReplayBytes`: what the streams may hold together of the changes they replay
    /// before their clients take them (`HTTPStreamBacklog`).
    init(
        store: any TripStoring, maxSubscribers: Int = defaultMaxSubscribers, maxReplayBytes: Int = HTTPStreamBacklog.defaultCapacity,
        clock: any SchedulingClock = SystemClock()
    ) {
        hub = HTTPStreamHub(backlog: HTTPStreamBacklog(capacity: maxReplayBytes))
        self.store = store
        self.maxSubscribers = maxSubscribers
        self.clock = clock
        store.setChangeListener { [weak self] event in self?.publish(event) }
    }

    /// Called by the store, under its lock, with each durable change. Framed and handed to
    /// the loops only while a stream follows the hub: a stream that starts later reads its
    /// start from the history after this change (`stream(since:)`).
    private func publish(_ event: ChangeEvent) {
        if hub.isFollowed { hub.publish(HTTPStreamHub.Message(sequence: event.revision, bytes: Self.frame(event))) }
        // Most changes find no read waiting to catch up and no long poll: no table is filtered,
        // emptied or copied for them (a thirtieth of replaying another instance's create).
        let caughtUp = catchUps.withLock { catchUps -> [@Sendable (Bool) -> Void] in
            guard !catchUps.isEmpty else { return [] }
            let reached = catchUps.filter { $0.value.revision <= event.revision }
            for id in reached.keys { catchUps[id] = nil }
            return reached.values.map(\.resume)
        }
        // Off the store's lock, which this runs under: a read that resumes reads the store.
        for resume in caughtUp { DispatchQueue.global().async { resume(true) } }
        let waiting = waiters.withLock { waiting -> [Waiter] in
            guard !waiting.isEmpty else { return [] }
            defer { waiting.removeAll() }
            return Array(waiting.values)
        }
        guard !waiting.isEmpty else { return }
        guard !event.isReset else {
            // What they missed is not told one by one: as a poll from a revision no longer kept.
            for waiter in waiting {
                waiter.responder.respond(
                    Self.gone(since: waiter.since, revision: event.revision, accept: waiter.accept, requestID: waiter.responder.requestID))
            }
            return
        }
        // A long poll waits only when it has seen every change, so this one is all it missed.
        let answer = Self.pollAnswer(revision: event.revision, [event])
        for waiter in waiting { waiter.responder.respond(answer) }
    }

    // MARK: - Server-sent events

    /// A stream that replays what `since` missed, then follows every change. It says `reset`
    /// instead (read the list again, then follow from here) when the history no longer reaches
    /// `since`, or when the replay does not fit beside those other streams' clients have not
    /// taken yet (`hub.backlog`).
    func stream(since: UInt64?) throws(APIError) -> HTTPReply {
        guard hub.streamCount < maxSubscribers else {
            var error = APIError(
                .serviceUnavailable, "The server has as many change streams open as it takes (\(maxSubscribers)). Try again later.")
            error.headerFields[.retryAfter] = "5"
            throw error
        }
        // Followed before the start is read: every change after it is then published.
        let following = hub.follow()
        // Only the events are taken under the store's lock (a copy-on-write array); they are
        // framed after it, so a wave of reconnecting clients does not hold up the writer.
        let (missed, revision) = store.withHistory { history in
            (since.map { history.events(after: $0) }, history.revision)
        }
        var initial = Array("retry: \(Self.retryMilliseconds)\n\n".utf8)
        var reservation: HTTPStreamBacklog.Reservation?
        switch missed {
        case nil: break  // no `since`: live from now
        case .some(nil): initial += Self.frame(.reset(revision: revision))
        case .some(let events?):
            // Sized before it is built, so a replay that does not fit is never made.
            reservation = hub.backlog.reserve(events.reduce(0) { $0 + Self.frameLength($1) })
            if reservation == nil {
                initial += Self.frame(.reset(revision: revision))
            } else {
                for event in events { initial += Self.frame(event) }
            }
        }
        let head = HTTPResponse(
            status: .ok,
            headerFields: [
                .contentType: MediaType.eventStream.contentTypeValue, .vary: "Accept", .cacheControl: "no-store",
                .tripsRevision: String(revision),
            ])
        return .stream(head, HTTPStreamStart(following: following, initial: initial, sequence: revision, reservation: reservation))
    }

    /// `id: 42`, `event: favorites`, `data: {…}` and a blank line.
    static func frame(_ event: ChangeEvent) -> [UInt8] {
        var bytes = Array(frameHead(event).utf8)
        bytes += event.data
        bytes += Array("\n\n".utf8)
        return bytes
    }

    /// The bytes `frame(event)` makes, without making them.
    static func frameLength(_ event: ChangeEvent) -> Int {
        frameHead(event).utf8.count + event.data.count + 2
    }

    private static func frameHead(_ event: ChangeEvent) -> String {
        "id: \(event.revision)\nevent: \(event.name)\ndata: "
    }

    // MARK: - Long polling

    /// The changes after `since` (by default, the current revision), at once when there are
    /// any; otherwise the first one within `wait` seconds, or none. 410 when the history no
    /// longer reaches `since`, or `since` is ahead of the list.
    func poll(since: UInt64?, wait: Int, accept: [String]) -> HTTPReply {
        .later { [self] responder in
            let id = nextWaiter.add(1, ordering: .relaxed).newValue
            // Decided and registered under the store's lock: no change slips in between.
            let answer = store.withHistory { history -> HTTPResponse? in
                let since = since ?? history.revision
                guard let missed = history.events(after: since) else {
                    return Self.gone(since: since, revision: history.revision, accept: accept, requestID: responder.requestID)
                }
                if !missed.isEmpty || wait == 0 { return Self.pollAnswer(revision: history.revision, missed) }
                waiters.withLock { $0[id] = (responder, since, accept) }
                return nil
            }
            if let answer {
                responder.respond(answer)
            } else {
                clock.schedule(after: .seconds(wait)) { [weak self] in self?.expire(id) }
            }
        }
    }

    /// 410: the changes after `since` are no longer kept.
    private static func gone(since: UInt64, revision: UInt64, accept: [String], requestID: IssuedRequestID?) -> HTTPResponse {
        var error = APIError(
            .gone,
            "Changes after revision \(since) are no longer kept, or it is ahead of the list: read /trips again, then follow the changes from its Trips-Revision."
        )
        error.revision = revision
        return error.response(accept: accept, requestID: requestID)
    }

    /// Calls `resume(true)` once this server's list has reached `revision` (at once when it
    /// has: another instance's change may still be on its way here), or `resume(false)` after
    /// `timeout`.
    func whenCaughtUp(to revision: UInt64, within timeout: Duration, _ resume: @escaping @Sendable (Bool) -> Void) {
        let id = nextWaiter.add(1, ordering: .relaxed).newValue
        // Checked and registered under the store's lock, where `publish` runs: nothing slips in between.
        let reached = store.withHistory { history -> Bool in
            guard history.revision < revision else { return true }
            catchUps.withLock { $0[id] = (revision, resume) }
            return false
        }
        guard !reached else { return resume(true) }
        clock.schedule(after: timeout) { [weak self] in
            guard let waiting = self?.catchUps.withLock({ $0.removeValue(forKey: id) }) else { return }
            waiting.resume(false)
        }
    }

    /// A long poll's time is up with no change: an empty list. Decided under the store's lock,
    /// where `publish` answers waiters too: a waiter still here has missed nothing.
    private func expire(_ id: UInt64) {
        let expired = store.withHistory { history -> (HTTPResponder, HTTPResponse)? in
            guard let responder = waiters.withLock({ $0.removeValue(forKey: id)?.responder }) else { return nil }
            return (responder, Self.pollAnswer(revision: history.revision, []))
        }
        if let (responder, answer) = expired { responder.respond(answer) }
    }

    /// At shutdown: every waiting long poll is answered now (with no change), so the server
    /// need not wait out their `?wait`.
    func endLongPolls() {
        let ended = store.withHistory { history -> ([HTTPResponder], HTTPResponse) in
            let waiting = waiters.withLock { waiting in
                defer { waiting.removeAll() }
                return waiting.values.map(\.responder)
            }
            return (waiting, Self.pollAnswer(revision: history.revision, []))
        }
        for responder in ended.0 { responder.respond(ended.1) }
    }

    /// `{"revision": N, "changes": [{"event": "created", "revision": …}, …]}`
    static func pollAnswer(revision: UInt64, _ events: [ChangeEvent]) -> HTTPResponse {
        var body = Array(#"{"revision":\#(revision),"changes":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += Array(#"{"event":"\#(event.name)","#.utf8)
            body += event.data.dropFirst()  // the event's own object, without its opening brace
        }
        body += Array("]}".utf8)
        return HTTPResponse(
            status: .ok,
            headerFields: [
                .contentType: MediaType.json.contentTypeValue, .vary: "Accept", .cacheControl: "no-store",
                .tripsRevision: String(revision),
            ],
            body: body)
    }
}
