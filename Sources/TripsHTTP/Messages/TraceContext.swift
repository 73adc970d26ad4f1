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
        // Made on the stack and appended at once: every answer has one.
        withUnsafeTemporaryAllocation(byteCount: Self.traceparentLineLength, alignment: 8) { line in
            writeTraceparentLine(into: line)
            output.append(contentsOf: UnsafeRawBufferPointer(line))
        }
        if let state {
            output.append(contentsOf: "tracestate: ".utf8)
            output.append(contentsOf: state.utf8)
            output.append(contentsOf: "\r\n".utf8)
        }
    }

    /// The length of `traceparent: <version 00>` and CRLF.
    static let traceparentLineLength = 13 + version00Length + 2

    /// Writes `traceparent: <version 00>` and CRLF at the start of `line`
    /// (`traceparentLineLength` bytes).
    func writeTraceparentLine(into line: UnsafeMutableRawBufferPointer) {
        let name: StaticString = "traceparent: "
        line.baseAddress!.copyMemory(from: name.utf8Start, byteCount: name.utf8CodeUnitCount)
        write(into: UnsafeMutableRawBufferPointer(rebasing: line[name.utf8CodeUnitCount...]))
        line[Self.traceparentLineLength - 2] = ASCII.cr
        line[Self.traceparentLineLength - 1] = ASCII.lf
    }

    /// `00-<trace id>-<this server's span id>-<flags>`: the context of the server's span, as a
    /// callee (or PostgreSQL, `application_name`) would be told it.
    package func appendTraceparent(to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: Self.version00Length, alignment: 8) { text in
            write(into: text)
            output.append(contentsOf: UnsafeRawBufferPointer(text))
        }
    }

    /// Writes the 55 bytes of the `traceparent` at the start of `text`.
    private func write(into text: UnsafeMutableRawBufferPointer) {
        text[0] = UInt8(ascii: "0")
        text[1] = UInt8(ascii: "0")
        text[2] = UInt8(ascii: "-")
        Self.storeHex(traceIDHigh, into: text, at: 3)
        Self.storeHex(traceIDLow, into: text, at: 19)
        text[35] = UInt8(ascii: "-")
        Self.storeHex(spanID, into: text, at: 36)
        text[52] = UInt8(ascii: "-")
        text[53] = LogLine.hexDigit(flags >> 4)
        text[54] = LogLine.hexDigit(flags)
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
        let digits = (Self.hexDigits(traceIDHigh), Self.hexDigits(traceIDLow))
        withUnsafeBytes(of: digits) { output.append(contentsOf: $0) }
    }

    /// `word` in 16 lowercase hex digits.
    package static func appendHex(_ word: UInt64, to output: inout [UInt8]) {
        withUnsafeBytes(of: hexDigits(word)) { output.append(contentsOf: $0) }
    }

    private static func storeHex(_ word: UInt64, into text: UnsafeMutableRawBufferPointer, at offset: Int) {
        let digits = hexDigits(word)
        text.storeBytes(of: digits.0, toByteOffset: offset, as: UInt64.self)
        text.storeBytes(of: digits.1, toByteOffset: offset + 8, as: UInt64.self)
    }

    /// The 16 lowercase hex digits of `word` as they lie in memory, made eight at a time in
    /// registers (SWAR), not a digit at a time: a byte per nibble, then `'0'` added, and 39
    /// more where the nibble is 10 or over (`'a'` is 39 past `'9' + 1`).
    static func hexDigits(_ word: UInt64) -> (UInt64, UInt64) {
        (hexDigits(UInt32(truncatingIfNeeded: word >> 32)), hexDigits(UInt32(truncatingIfNeeded: word)))
    }

    private static func hexDigits(_ half: UInt32) -> UInt64 {
        var x = UInt64(half)
        x = ((x & 0xFFFF_0000) << 16) | (x & 0x0000_FFFF)
        x = ((x & 0x0000_FF00_0000_FF00) << 8) | (x & 0x0000_00FF_0000_00FF)
        x = ((x & 0x00F0_00F0_00F0_00F0) << 4) | (x & 0x000F_000F_000F_000F)
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        x = x &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
        return x.bigEndian  // the first digit at the lowest address
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

    /// The context of a request with `fields`: its valid `traceparent` (and `tracestate`)
    /// continued, or a new trace when it has none, or a malformed one.
    func context(for fields: HTTPFields) -> TraceContext {
        guard let parent = TraceContext.Parent(fields) else { return newTrace() }
        return TraceContext(
            traceIDHigh: parent.traceIDHigh, traceIDLow: parent.traceIDLow, spanID: random.nextNonZero(), parentID: parent.parentID,
            flags: parent.flags, state: TraceContext.state(fields))
    }

    /// A new trace, for a request without a usable `traceparent` or bytes that never became
    /// a request.
    func newTrace() -> TraceContext {
        let (high, low, span) = Self.newIDs(&random)  // one access to the generator, not three
        return TraceContext(traceIDHigh: high, traceIDLow: low, spanID: span, parentID: nil, flags: 0, state: nil)
    }

    private static func newIDs(_ random: inout RandomWords) -> (UInt64, UInt64, UInt64) {
        let high = random.next()
        let low = high == 0 ? random.nextNonZero() : random.next()
        return (high, low, random.nextNonZero())
    }
}

@available(*, unavailable)
extension TraceContextGenerator: Sendable {}
