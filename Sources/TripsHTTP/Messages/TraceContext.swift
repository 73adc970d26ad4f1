import TripsPlatform

/// Where one request sits in a distributed trace (W3C Trace Context): the trace it belongs
/// to, the span the client made it from, and the span this server answers it in.
///
/// The client's `traceparent` gives the trace id, its span (`parentID`) and the flags; the
/// server's span is new for every request. Without a valid `traceparent`, the request starts
/// a new trace. The answer says `traceparent: 00-<trace id>-<server's span>-<flags>`, so the
/// client (or the proxy in front) can find this server's work in its trace, and the access
/// log names the same ids. https://www.w3.org/TR/trace-context/
///
/// Ids are integers until written: a request costs no String for them.
package struct TraceContext: Sendable, Hashable {
    /// The trace id's 128 bits, high word first; never all zero.
    package var traceIDHigh: UInt64
    package var traceIDLow: UInt64
    /// This server's span for the request; never zero.
    package var spanID: UInt64
    /// The client's span (its `traceparent`'s parent-id); nil when the trace began here.
    package var parentID: UInt64?
    /// The trace flags, as the client sent them (bit 0: sampled); 0 for a new trace.
    package var flags: UInt8
    /// The client's `tracestate`, passed through when it is valid and within bounds.
    package var state: String?

    /// `traceparent: …` and, when there is one, `tracestate: …`, as response field lines.
    package func appendFieldLines(to output: inout [UInt8]) {
        output.append(contentsOf: "traceparent: ".utf8)
        appendTraceparent(to: &output)
        output.append(contentsOf: "\r\n".utf8)
        if let state {
            output.append(contentsOf: "tracestate: ".utf8)
            output.append(contentsOf: state.utf8)
            output.append(contentsOf: "\r\n".utf8)
        }
    }

    /// `00-<trace id>-<this server's span id>-<flags>`: the context of the server's span, as a
    /// callee (or PostgreSQL, `application_name`) would be told it.
    package func appendTraceparent(to output: inout [UInt8]) {
        output.append(contentsOf: "00-".utf8)
        appendTraceID(to: &output)
        output.append(UInt8(ascii: "-"))
        Self.appendHex(spanID, to: &output)
        output.append(UInt8(ascii: "-"))
        output.append(LogLine.hexDigit(flags >> 4))
        output.append(LogLine.hexDigit(flags))
    }

    /// The `traceparent` of the server's span as text (for a store's transaction; not for
    /// the hot path).
    package var traceparent: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.version00Length)
        appendTraceparent(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The trace id in 32 lowercase hex digits.
    package func appendTraceID(to output: inout [UInt8]) {
        Self.appendHex(traceIDHigh, to: &output)
        Self.appendHex(traceIDLow, to: &output)
    }

    /// `word` in 16 lowercase hex digits.
    package static func appendHex(_ word: UInt64, to output: inout [UInt8]) {
        var shift = 60
        while shift >= 0 {
            output.append(LogLine.hexDigit(UInt8(truncatingIfNeeded: word >> UInt64(shift))))
            shift -= 4
        }
    }

    /// The length of a version-00 `traceparent`.
    static let version00Length = 55
}

/// Issues the trace contexts of one loop's requests: the client's trace continued, or a new
/// one, each with a new span id from the loop's own `RandomWords`.
///
/// Confined to its loop.
package final class TraceContextGenerator {
    private var random: RandomWords

    init(random: RandomWords = RandomWords()) {
        self.random = random
    }

    /// The context of `request`: its valid `traceparent` (and `tracestate`) continued, or a
    /// new trace when it has none, or a malformed one.
    func context(for request: HTTPRequest) -> TraceContext {
        guard let parent = TraceContext.Parent(request.headerFields) else { return newTrace() }
        return TraceContext(
            traceIDHigh: parent.traceIDHigh, traceIDLow: parent.traceIDLow, spanID: random.nextNonZero(), parentID: parent.parentID,
            flags: parent.flags, state: TraceContext.state(request.headerFields))
    }

    /// A new trace, for a request without a usable `traceparent` or bytes that never became
    /// a request.
    func newTrace() -> TraceContext {
        let high = random.next()
        let low = high == 0 ? random.nextNonZero() : random.next()
        return TraceContext(traceIDHigh: high, traceIDLow: low, spanID: random.nextNonZero(), parentID: nil, flags: 0, state: nil)
    }
}

@available(*, unavailable)
extension TraceContextGenerator: Sendable {}
