// The checks reach internal types through `@testable import`, which only a debug build
// (compiled for testing) allows; `scripts/checks/fuzz.sh` builds debug. A release build of every
// target still compiles, with a stub that refuses to run.
#if DEBUG
@testable import TripsHTTP

/// What a stream of bytes parsed into: the requests in order, then either a failure or
/// "need more bytes". `100 Continue` answers are left out: whether one is due depends on
/// where the bytes were split, by design.
private struct Outcome: Equatable {
    var requests: [HTTPRequest] = []
    var failure: HTTPParseError?

    /// The same requests, and a failure in both or in neither. Which error a bad stream
    /// gets may depend on the split, by design: a partial request line is rejected early
    /// for a byte no method holds (`invalidMethod`) or for its length (`requestLineTooLong`),
    /// before the whole line shows another fault (a bare LF, say).
    static func == (lhs: Outcome, rhs: Outcome) -> Bool {
        lhs.requests == rhs.requests && (lhs.failure == nil) == (rhs.failure == nil)
    }
}

/// Limits small enough that fuzzed inputs reach every limit check.
private let tinyLimits = HTTPServerConfiguration.Limits(
    maxRequestLineLength: 40, maxHeaderSectionLength: 120, maxHeaderFieldCount: 4, maxBodyLength: 64,
    maxChunkLineLength: 12)

/// Limits no re-serialised request reaches: a byte that is not UTF-8 in a field value
/// comes back as the three bytes of U+FFFD, so a written-out head can be longer.
private let roomyLimits = HTTPServerConfiguration.Limits(
    maxRequestLineLength: 1 << 20, maxHeaderSectionLength: 1 << 22, maxHeaderFieldCount: 1 << 16,
    maxBodyLength: 1 << 22, maxChunkLineLength: 64)

/// The first byte picks the limits and the split; the rest is the stream.
///
/// Properties: no crash; no hang (each step makes progress or asks for more); what the
/// parser keeps between reads stays within the limits; the stream gives the same requests
/// and the same error whether fed whole, split in two at a position the second byte
/// picks, or a byte at a time; every request, written out again, parses to itself.
func checkRequestParser(_ input: [UInt8]) {
    guard input.count >= 2 else { return }
    let limits = input[0] & 1 == 0 ? HTTPServerConfiguration.Limits() : tinyLimits
    let stream = Array(input[2...])

    let whole = parse([stream], limits: limits)
    let cut = Int(input[1]) * stream.count / 255
    let halves = parse([Array(stream[..<cut]), Array(stream[cut...])], limits: limits)
    precondition(halves == whole, "split at \(cut) parsed differently: \(halves) vs \(whole)")
    if stream.count <= 600 {
        let bytewise = parse(stream.map { [$0] }, limits: limits)
        precondition(bytewise == whole, "a byte at a time parsed differently: \(bytewise) vs \(whole)")
    }

    for request in whole.requests {
        precondition(HTTPMethod.known.contains(request.method), "unknown method \(request.method)")
        precondition(request.version == .http1_1 || request.version == .http1_0)
        if request.version == .http1_1 {
            precondition(request.headerFields.values(for: .host).count == 1, "an HTTP/1.1 request needs one Host")
        }
        precondition(request.body.count <= limits.maxBodyLength, "body over the limit")
        let again = parse([serialize(request)], limits: roomyLimits)
        precondition(
            again.requests == [request] && again.failure == nil,
            "re-serialised request parsed differently: \(again) vs \(request)")
    }
}

/// Feeds `chunks` one read at a time, keeping the unconsumed rest as the connection does.
private func parse(_ chunks: [[UInt8]], limits: HTTPServerConfiguration.Limits) -> Outcome {
    var parser = RequestParser(limits: limits)
    var outcome = Outcome()
    var pending: [UInt8] = []
    let keptBound = max(limits.maxRequestLineLength + 1, limits.maxHeaderSectionLength, limits.maxChunkLineLength + 1)
    for chunk in chunks {
        pending += chunk
        var steps = 0
        let maxSteps = pending.count + 2
        reading: while true {
            steps += 1
            precondition(steps <= maxSteps, "the parser makes no progress")
            let step = pending.withUnsafeBytes { parser.parse($0) }
            precondition(step.consumed >= 0 && step.consumed <= pending.count, "consumed \(step.consumed) of \(pending.count)")
            pending.removeFirst(step.consumed)
            switch step.event {
            case .needMoreBytes:
                precondition(pending.count <= keptBound, "keeps \(pending.count) bytes, over every limit")
                break reading
            case .sendContinue:
                precondition(parser.isReadingBody, "100 Continue outside a body")
                continue
            case .request(let request):
                precondition(step.consumed > 0, "a request from no bytes")
                outcome.requests.append(request)
            case .failure(let error):
                outcome.failure = error
                return outcome
            }
        }
    }
    return outcome
}

/// Writes a request out the way a client would: the same line and fields, and the body
/// framed as the fields say (one chunk when it was chunked, the trailers dropped).
private func serialize(_ request: HTTPRequest) -> [UInt8] {
    var text = "\(request.method) \(request.target) \(request.version)\r\n"
    for field in request.headerFields {
        // No space after the colon: the line is never longer than the one that was parsed.
        text += "\(field.name.rawName):\(field.value)\r\n"
    }
    text += "\r\n"
    var bytes = Array(text.utf8)
    if request.headerFields.contains(.transferEncoding) {
        if !request.body.isEmpty {
            bytes += Array("\(String(request.body.count, radix: 16))\r\n".utf8) + request.body + Array("\r\n".utf8)
        }
        bytes += Array("0\r\n\r\n".utf8)
    } else {
        bytes += request.body
    }
    return bytes
}
#else
func checkRequestParser(_ input: [UInt8]) {
    fatalError("FuzzRequestParser needs a debug build: it reaches TripsServer through @testable import")
}
#endif
