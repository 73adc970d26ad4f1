import TripsPlatform

/// The HTTP/1.1 side of one connection, without its socket: fed bytes and the time, it appends
/// what to write to an output buffer and says, through `state` and `deadline()`, what to do next.
///
/// The event loop owns the socket: it reads into its shared buffer, calls `receive`, writes the
/// output in one `send`, keeps any unsent rest in `pendingOutput`, and stops reading while
/// `isReadable` is false (a deferred response is pending, output is backed up, requests are held
/// back, or it is closing).
///
/// Pipelined requests are answered only while the client keeps up: once more than
/// `maxAnswerBacklog` bytes of answers are unsent, the rest wait unparsed in `leftover` (and
/// the socket is not read), until the loop sees the client take enough and calls `resume`.
///
/// Confined to its loop.
package final class HTTPConnection {
    let id: ConnectionID
    /// The client's address, as the socket's peer (nil when it has none), for each request's context.
    private let peer: IPAddress?
    /// The peer as the access log writes it: spelled once per connection, when first logged.
    private lazy var peerText: String? = peer?.description
    let environment: ConnectionEnvironment
    private(set) var parser: RequestParser
    private(set) var state: State = .open
    /// Unconsumed bytes of an incomplete request (or requests pipelined behind a deferred one,
    /// or behind answers the client has not read).
    private var leftover: [UInt8] = []
    /// `leftover` holds requests held back because the client left too many answers unread.
    private var isHoldingRequests = false
    /// Bytes the socket did not take yet; the loop owns writing them.
    var pendingOutput: [UInt8] = []
    /// What the deferred response needs to be written like the immediate ones.
    private var deferred: (omitContent: Bool, connection: HTTPResponse.ConnectionField, context: RequestContext)?
    /// The request being answered, for its `X-Request-ID` and its access log line.
    private var current: InFlight?
    /// The stream this connection follows, while `state` is `.streaming` (and until the loop
    /// closes it, which counts it out of the hub).
    private(set) var stream: Stream?

    /// A request on its way to an answer: its id and trace context (each nil when the
    /// environment issues none), its method and, for the access log, the request (nil for
    /// bytes that never parsed into a request; the request also nil when nothing logs it:
    /// holding it costs a retain and a release), and when it arrived.
    private struct InFlight {
        var id: RequestID?
        var trace: TraceContext?
        var method: HTTPMethod? = nil
        var request: HTTPRequest? = nil
        var startedAt: MonotonicInstant
    }
    private var peerClosed = false

    let openedAt: MonotonicInstant
    private(set) var requestStartedAt: MonotonicInstant?
    /// When the current request's header section ended and its content began.
    private(set) var contentStartedAt: MonotonicInstant?
    private(set) var idleSince: MonotonicInstant?
    private(set) var lastReadAt: MonotonicInstant
    private(set) var lastWriteAt: MonotonicInstant

    init(id: ConnectionID, peer: IPAddress? = nil, environment: ConnectionEnvironment, now: MonotonicInstant) {
        self.id = id
        self.peer = peer
        self.environment = environment
        parser = RequestParser(limits: environment.configuration.limits) { [handler = environment.handler] head in
            handler.contentLimit(for: head)
        }
        openedAt = now
        lastReadAt = now
        lastWriteAt = now
    }

    /// Whether the loop should read from the socket now.
    var isReadable: Bool {
        switch state {
        case .open, .streaming: pendingOutput.isEmpty && !isHoldingRequests
        case .lingering: true
        case .awaitingResponse, .closing, .closed: false
        }
    }

    /// True when no request is in progress: nothing buffered, nothing pending, nothing to write.
    var isIdle: Bool {
        state == .open && parser.isBetweenRequests && leftover.isEmpty && pendingOutput.isEmpty
    }

    // MARK: - Input

    /// Takes bytes read from the socket and appends any responses to `output`.
    func receive(_ bytes: UnsafeRawBufferPointer, now: MonotonicInstant, output: inout [UInt8]) {
        switch state {
        case .lingering, .closed, .streaming:
            return
        case .awaitingResponse, .closing:
            leftover.append(contentsOf: bytes)
            return
        case .open:
            break
        }
        lastReadAt = now
        if leftover.isEmpty {
            let consumed = process(bytes, now: now, output: &output)
            if consumed < bytes.count, state != .closing {
                leftover.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            leftover.append(contentsOf: bytes)
            processLeftover(now: now, output: &output)
        }
        noteRequestProgress(now)
    }

    /// The peer shut its write side (read returned 0).
    func peerDidClose() {
        switch state {
        case .awaitingResponse, .closing:
            peerClosed = true
        case .open where !pendingOutput.isEmpty:
            peerClosed = true
            state = .closing
        case .open, .lingering, .closed, .streaming:
            state = .closed
        }
    }

    private func processLeftover(now: MonotonicInstant, output: inout [UInt8]) {
        let consumed = leftover.withUnsafeBytes { process($0, now: now, output: &output) }
        if state == .closing || consumed == leftover.count {
            leftover = []  // not emptied in place: a burst of pipelined requests gives its memory back
        } else {
            leftover.removeFirst(consumed)
        }
    }

    /// Whether answers the client has not taken (sent earlier, or in `output` now) exceed the
    /// backlog, so that no further pipelined request is parsed for now.
    private func isBackedUp(_ output: [UInt8]) -> Bool {
        pendingOutput.count + output.count > environment.configuration.limits.maxAnswerBacklog
    }

    /// Parses and answers as many requests as `buffer` holds and the backlog allows; returns
    /// the bytes consumed.
    private func process(_ buffer: UnsafeRawBufferPointer, now: MonotonicInstant, output: inout [UInt8]) -> Int {
        var offset = 0
        isHoldingRequests = false
        while state == .open {
            if isBackedUp(output) {
                isHoldingRequests = offset < buffer.count
                return offset
            }
            let step = parser.parse(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            offset += step.consumed
            switch step.event {
            case .needMoreBytes:
                return offset
            case .sendContinue:
                let head = parser.headOfCurrentRequest
                begin(head, now: now)
                var context = RequestContext()
                context.requestID = currentRequestID
                context.peer = peer
                if let refusal = environment.handler.refusal(beforeContent: head, context: &context) {
                    write(refusal, context: context, omitContent: head.method == .head, connection: .close, now: now, output: &output)
                    return offset
                }
                output.append(contentsOf: HTTPResponse.continueBytes)
            case .request(let request):
                dispatch(request, now: now, output: &output)
            case .failure(let error):
                if current == nil { current = unparsedInFlight() }
                write(
                    error.response(accept: parser.acceptOfCurrentRequest, instance: currentRequestID?.text), omitContent: false,
                    connection: .close, now: now, output: &output)
                return offset
            }
        }
        return offset
    }

    /// The client took some of its answers: parses the requests held back, as far as the
    /// backlog allows again. The loop calls it whenever `canResume` is true.
    func resume(now: MonotonicInstant, output: inout [UInt8]) {
        guard canResume else { return }
        processLeftover(now: now, output: &output)
        noteRequestProgress(now)
    }

    /// Requests are held back and the client has read enough of its answers to parse them.
    var canResume: Bool { isHoldingRequests && state == .open && !isBackedUp([]) }

    /// Starts answering `request`: its timers stop, and it becomes the one the next answer logs.
    /// A request whose head was already begun (for `100 Continue`) keeps its id and trace.
    /// Its duration counts from `now`, the instant the loop woke to read it, as nginx's
    /// `$request_time` counts from its loop's cached time: a request pipelined behind a slow
    /// one, or read after other connections' work in the same turn, includes that wait, as its
    /// client saw it. The clock is read once more, at the answer, not here too.
    private func begin(_ request: HTTPRequest, now: MonotonicInstant) {
        requestStartedAt = nil
        contentStartedAt = nil
        guard environment.requestIDs != nil || environment.traces != nil else { return }
        let logged = environment.accessLog == nil ? nil : request
        if current != nil {
            current?.method = request.method
            current?.request = logged
            return
        }
        let fields = request.headerFields  // read once: each read is a retain and a release
        current = InFlight(
            id: environment.requestIDs?.id(clientValue: fields[.xRequestID]), trace: environment.traces?.context(for: fields),
            method: request.method, request: logged, startedAt: now)
    }

    private func dispatch(_ request: HTTPRequest, now: MonotonicInstant, output: inout [UInt8]) {
        begin(request, now: now)
        let omitContent = request.method == .head
        let connection: HTTPResponse.ConnectionField =
            !request.keepAlive || environment.isShuttingDown
            ? .close : (request.version == .http1_0 ? .keepAlive : .none)
        var context = RequestContext()
        context.requestID = currentRequestID
        context.peer = peer
        switch environment.handler.handle(request, context: &context) {
        case .now(let response):
            write(response, context: context, omitContent: omitContent, connection: connection, now: now, output: &output)
        case .later(let start):
            state = .awaitingResponse
            deferred = (omitContent, connection, context)
            start(HTTPResponder(sink: environment.sink, connection: id, trace: current?.trace, requestID: context.requestID))
        case .stream(let head, let start):
            startStream(head, start, context: context, request: request, connection: connection, now: now, output: &output)
        }
    }

    /// Writes a stream's head and backlog and makes the connection follow the hub. A HEAD
    /// request gets the head alone; a stream that starts during shutdown ends at once.
    private func startStream(
        _ head: HTTPResponse, _ start: HTTPStreamStart, context: RequestContext, request: HTTPRequest,
        connection: HTTPResponse.ConnectionField,
        now: MonotonicInstant, output: inout [UInt8]
    ) {
        let isChunked = request.version == .http1_1
        guard request.method != .head else {
            write(
                head, context: context, omitContent: true, connection: connection, now: now, output: &output,
                framing: isChunked ? .chunked : .untilClose)
            return
        }
        write(
            head, context: context, omitContent: false, connection: isChunked ? connection : .close, now: now, output: &output,
            framing: isChunked ? .chunked : .untilClose)
        state = .streaming
        stream = Stream(
            following: start.following, sequence: start.sequence, isChunked: isChunked, lastSentAt: now, reservation: start.reservation)
        start.hub.streamOpened()
        appendStreamBytes(start.initial, output: &output)
        if environment.isShuttingDown { endStream(output: &output) }
    }

    /// Whether the connection follows a stream (and so counts as one of its hub's).
    var isStreaming: Bool { stream != nil }

    /// A message published to the streams: written unless this stream already has it.
    func deliver(_ message: HTTPStreamHub.Message, now: MonotonicInstant, output: inout [UInt8]) {
        guard state == .streaming, let sequence = stream?.sequence, message.sequence > sequence else { return }
        if pendingOutput.isEmpty { stream?.reservation = nil }  // the client took the backlog
        stream?.sequence = message.sequence
        stream?.lastSentAt = now
        appendStreamBytes(message.bytes, output: &output)
    }

    /// Ends the stream cleanly (the last chunk), then the connection closes.
    func endStream(output: inout [UInt8]) {
        guard state == .streaming, let stream else { return }
        if stream.isChunked { output.append(contentsOf: "0\r\n\r\n".utf8) }
        state = .closing
    }

    /// The loop closed the socket: the stream, if any, is counted out of its hub.
    func didClose() {
        stream?.hub.streamClosed()
        stream = nil
    }

    private func appendStreamBytes(_ bytes: [UInt8], output: inout [UInt8]) {
        guard !bytes.isEmpty, let stream else { return }
        if stream.isChunked {
            HTTPResponse.appendChunk(bytes, to: &output)
        } else {
            output.append(contentsOf: bytes)
        }
    }

    /// What a silent stream sends every heartbeat: a comment line, which readers ignore.
    private static let heartbeat = Array(": keep-alive\n\n".utf8)

    /// The response to a request whose handler answered `.later`.
    func complete(_ response: HTTPResponse, now: MonotonicInstant, output: inout [UInt8]) {
        guard state == .awaitingResponse, let deferred else { return }
        self.deferred = nil
        state = .open
        var connection = deferred.connection
        if peerClosed || environment.isShuttingDown { connection = .close }
        write(response, context: deferred.context, omitContent: deferred.omitContent, connection: connection, now: now, output: &output)
        if state == .open && !leftover.isEmpty {
            processLeftover(now: now, output: &output)
            noteRequestProgress(now)
        }
    }

    /// Writes `response`, and counts and logs it with what the handler said of its request
    /// (nothing for an answer the connection makes itself: a parse error, a timeout).
    private func write(
        _ response: HTTPResponse, context: RequestContext = RequestContext(), omitContent: Bool, connection: HTTPResponse.ConnectionField,
        now: MonotonicInstant, output: inout [UInt8], framing: HTTPResponse.Framing = .contentLength
    ) {
        var connection = connection
        if connection != .close && response.asksToClose { connection = .close }
        // Moved out, not copied, and bound whole: an `InFlight?` dropped as one went through
        // Optional's generic value witness. None when the loop issues neither ids nor traces.
        guard let answered = current.take() ?? unparsedInFlight() else {
            response.serialize(
                into: &output, omitContent: omitContent, connection: connection, dates: environment.dates,
                framing: framing)
            finishWrite(connection: connection, now: now)
            return
        }
        response.serialize(
            into: &output, omitContent: omitContent, connection: connection,
            dates: environment.dates,
            requestID: answered.id.map { ($0, environment.requestIDs?.prefix ?? []) }, trace: answered.trace, framing: framing)
        let duration = environment.now().nanoseconds(since: answered.startedAt)
        environment.counters.record(
            route: context.routeLabel ?? .max, method: answered.method, status: response.status.code, nanoseconds: duration)
        if let accessLog = environment.accessLog, let id = answered.id {
            accessLog.record(
                id: id, idPrefix: environment.requestIDs?.prefix ?? [], request: answered.request, trace: answered.trace,
                status: response.status.code, bytes: omitContent ? 0 : response.body.count, duration: duration, user: context.user,
                peer: peerText)
        }
        finishWrite(connection: connection, now: now)
    }

    /// What every write ends with: the idle and write clocks restart, and `close` is kept.
    private func finishWrite(connection: HTTPResponse.ConnectionField, now: MonotonicInstant) {
        idleSince = now
        lastWriteAt = now
        if connection == .close { state = .closing }
    }

    /// The id of the request being answered, as its `X-Request-ID` says it.
    private var currentRequestID: IssuedRequestID? {
        guard let id = current?.id, let prefix = environment.requestIDs?.prefix else { return nil }
        return IssuedRequestID(id: id, prefix: prefix)
    }

    /// An answer the connection makes itself (a parse error, a timeout) still has an id and a
    /// trace of its own.
    private func unparsedInFlight() -> InFlight? {
        guard environment.requestIDs != nil || environment.traces != nil else { return nil }
        return InFlight(id: environment.requestIDs?.next(), trace: environment.traces?.newTrace(), startedAt: environment.now())
    }

    private func noteRequestProgress(_ now: MonotonicInstant) {
        guard state == .open else { return }
        if parser.isBetweenRequests && leftover.isEmpty {
            requestStartedAt = nil
        } else if requestStartedAt == nil {
            requestStartedAt = now
        }
        if !parser.isReadingBody {
            contentStartedAt = nil
        } else if contentStartedAt == nil {
            contentStartedAt = now
        }
    }

    // MARK: - Output

    /// The socket took some output: the write timer restarts.
    func noteWriteProgress(now: MonotonicInstant) {
        lastWriteAt = now
    }

    /// The final response is out and the write side shut: drain what the client still sends.
    func beginLingering(now: MonotonicInstant) {
        state = peerClosed ? .closed : .lingering(until: now + environment.configuration.timeouts.lingeringClose)
    }

    /// At shutdown: close if nothing is in progress; otherwise the next response closes.
    func closeIfIdle() {
        if isIdle { state = .closed }
    }

    // MARK: - Time (when: HTTPConnection+Deadlines.swift)

    /// Acts on a passed deadline: 408 for a request begun but not complete, otherwise a silent close.
    func expire(now: MonotonicInstant, output: inout [UInt8]) {
        guard let deadline = deadline(), deadline <= now else { return }
        if state == .streaming && pendingOutput.isEmpty {
            stream?.reservation = nil  // the client took the backlog
            stream?.lastSentAt = now
            appendStreamBytes(Self.heartbeat, output: &output)
            return
        }
        if state == .open && pendingOutput.isEmpty && (parser.isReadingBody || requestStartedAt != nil) {
            let detail =
                !parser.isReadingBody
                ? "The request header section did not arrive in time."
                : lastReadAt + environment.configuration.timeouts.bodyStall <= now
                    ? "The request content stalled."
                    : "The request content arrived too slowly: under \(environment.configuration.timeouts.minimumBodyRate) bytes a second on average."
            if current == nil { current = unparsedInFlight() }
            let response = ProblemDetails(.requestTimeout, detail, type: .requestTimeout)
                .response(accept: parser.acceptOfCurrentRequest, instance: currentRequestID?.text)
            write(response, omitContent: false, connection: .close, now: now, output: &output)
            leftover = []
        } else {
            state = .closed
        }
    }
}

@available(*, unavailable)
extension HTTPConnection: Sendable {}
