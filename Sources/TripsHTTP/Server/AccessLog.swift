import TripsPlatform

/// One line per request, buffered per loop and written once per loop turn, as nginx buffers
/// its access log: a line per `write` would cost more than the request. In logfmt:
///
///     time=2026-11-29T18:33:02.123Z id=3f9a1c2e-0-1f method=GET path=/trips/2 status=200 bytes=228 duration_ms=0.041 peer=127.0.0.1 trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=53995c3f42cd8ad8 parent_span_id=00f067aa0ba902b7
///
/// As JSON (`--log-format json`), with OpenTelemetry's names:
///
///     {"timestamp":"2026-11-29T18:33:02.123Z","level":"info","event":"http.server.request","request_id":"3f9a1c2e-0-1f",
///      "http.request.method":"GET","url.path":"/trips","url.query":"sort=price","http.response.status_code":200,
///      "http.request.body.size":0,"http.response.body.size":228,"http.server.request.duration":0.000041,
///      "network.peer.address":"127.0.0.1","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"53995c3f42cd8ad8","parent_span_id":"00f067aa0ba902b7"}
///
/// (on one line). `parent_span_id` is the client's span, when its `traceparent` was valid.
///
/// Confined to its loop.
package final class AccessLog {
    private let descriptor: Int32
    private let format: LogFormat
    private var buffer: [UInt8] = []
    private var timestamp = LogTimestamp()
    /// Lines are written when the buffer passes this, or at the end of the loop turn.
    private static let flushThreshold = 32 * 1024

    /// Writes to `descriptor` (1 for standard output).
    init(descriptor: Int32, format: LogFormat = .logfmt) {
        self.descriptor = descriptor
        self.format = format
        buffer.reserveCapacity(Self.flushThreshold * 2)
    }

    /// Records one answered request. `request` is nil for bytes that never became one (a
    /// parse error); `bytes` is the content sent; `peer` is the client's address, as its
    /// connection spelled it once.
    func record(
        id: RequestID, idPrefix: [UInt8], request: HTTPRequest?, trace: TraceContext?, status: Int, bytes: Int,
        duration: UInt64, user: String? = nil, peer: String? = nil
    ) {
        var line = LogLine(format: format, into: &buffer)
        line.text("time", "timestamp", into: &buffer) { [now = LogTimestamp.now()] in timestamp.append(now, to: &$0) }
        if format == .json {
            line.string("level", "level", "info", into: &buffer)
            line.string("event", "event", "http.server.request", into: &buffer)
        }
        line.text("id", "request_id", into: &buffer) { id.append(to: &$0, prefix: idPrefix) }
        appendTarget(request, to: &line)
        if let user { line.string("user", "user.name", user, into: &buffer) }
        line.integer("status", "http.response.status_code", status, into: &buffer)
        if format == .json { line.integer("request_bytes", "http.request.body.size", request?.body.count ?? 0, into: &buffer) }
        line.integer("bytes", "http.response.body.size", bytes, into: &buffer)
        if format == .json {
            line.fixedPoint("duration", "http.server.request.duration", duration / 1000, fractionDigits: 6, into: &buffer)
        } else {
            line.fixedPoint("duration_ms", "duration_ms", duration / 1000, fractionDigits: 3, into: &buffer)
        }
        if let peer { line.string("peer", "network.peer.address", peer, into: &buffer) }
        if let trace {
            line.text("trace_id", "trace_id", into: &buffer) { trace.appendTraceID(to: &$0) }
            line.text("span_id", "span_id", into: &buffer) { TraceContext.appendHex(trace.spanID, to: &$0) }
            if let parent = trace.parentID {
                line.text("parent_span_id", "parent_span_id", into: &buffer) { TraceContext.appendHex(parent, to: &$0) }
            }
        }
        line.end(into: &buffer)
        if buffer.count >= Self.flushThreshold { flush() }
    }

    /// logfmt's `method=GET path=/a?b` (`-` for bytes that never became a request); JSON's
    /// `http.request.method`, `url.path` and `url.query`, left out when there was no request.
    private func appendTarget(_ request: HTTPRequest?, to line: inout LogLine) {
        guard format == .json else {
            line.string("method", "", request?.method.rawValue ?? "-", into: &buffer)
            line.string("path", "", request?.target ?? "-", into: &buffer)
            return
        }
        guard let request else { return }
        line.string("", "http.request.method", request.method.rawValue, into: &buffer)
        line.string("", "url.path", request.path, into: &buffer)
        if let query = request.query { line.string("", "url.query", query, into: &buffer) }
    }

    /// Writes what is buffered; a full or closed log loses lines, never blocks the loop for long.
    func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in _ = try? writeAll(descriptor, bytes) }  // a closed log loses lines
        buffer.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable)
extension AccessLog: Sendable {}
