import Testing

@testable import TripsHTTP

/// How an answer's head is written: a prepared response (a cached one, its field lines made
/// once) must come out byte for byte as the same response formatted on the spot.
@Suite struct HTTPResponseSerializationTests {
    static let response = HTTPResponse(
        status: .ok, headerFields: [.contentType: "application/json", .etag: "\"t2-5\""], body: Array(#"{"id":2}"#.utf8))
    /// A loop's cached lines (a cache is its loop's alone: each test makes its own).
    static var dates: DateCache { DateCache(epochSeconds: 784_111_777) }
    static let trace = TraceContext(
        traceIDHigh: 0x4bf9_2f35_77b3_4da6, traceIDLow: 0xa3ce_929d_0e0e_4736, spanID: 0x00f0_67aa_0ba9_02b7, parentID: nil, flags: 1,
        state: nil)

    static func written(
        _ response: HTTPResponse, omitContent: Bool = false, connection: HTTPResponse.ConnectionField, requestID: RequestID? = nil
    ) -> String {
        var output: [UInt8] = []
        response.serialize(
            into: &output, omitContent: omitContent, connection: connection, dates: dates,
            requestID: requestID.map { ($0, Array("0a1b2c3d-0-".utf8)) }, trace: trace)
        return String(decoding: output, as: UTF8.self)
    }

    @Test(arguments: [HTTPResponse.ConnectionField.none, .close, .keepAlive], [false, true])
    func aPreparedResponseIsWrittenAsTheSameResponseFormatted(connection: HTTPResponse.ConnectionField, omitContent: Bool) {
        let formatted = Self.written(Self.response, omitContent: omitContent, connection: connection, requestID: .generated(42))
        let prepared = Self.written(Self.response.prepared(), omitContent: omitContent, connection: connection, requestID: .generated(42))
        #expect(prepared == formatted)
        #expect(formatted.hasSuffix(omitContent ? "\r\n\r\n" : "\r\n\r\n{\"id\":2}"))
    }

    /// A prepared head keeps a small content right after it (one append for both), up to
    /// `contentKeptAfterHead` bytes; either way, and for a status without content, the
    /// response is written as the same response formatted.
    @Test(arguments: [
        (HTTPStatus.ok, 1, true), (.ok, PreparedHTTPHead.contentKeptAfterHead, true),
        (.ok, PreparedHTTPHead.contentKeptAfterHead + 1, false),
        (.ok, 0, false), (.noContent, 0, false), (.notFound, 40, true),
    ])
    func aSmallContentIsKeptAfterItsPreparedHead(status: HTTPStatus, contentLength: Int, isKept: Bool) {
        let response = HTTPResponse(
            status: status, headerFields: [.contentType: "text/plain"], body: Array(repeating: 0x61, count: contentLength))
        let prepared = response.prepared()
        #expect(prepared.preparedHead?.keepsContent == isKept)
        for connection in [HTTPResponse.ConnectionField.none, .close] {
            for omitContent in [false, true] {
                let formatted = Self.written(response, omitContent: omitContent, connection: connection, requestID: .generated(7))
                #expect(Self.written(prepared, omitContent: omitContent, connection: connection, requestID: .generated(7)) == formatted)
            }
        }
        // A cache counts the content kept twice against its budget.
        #expect(prepared.byteCount > response.byteCount + (isKept ? contentLength : 0))
    }

    /// The loop's lines are rendered again when the second changes, a 200's with them, and a
    /// 200 and any other status start alike but for the status line.
    @Test func theLinesEveryAnswerHasFollowTheClockForEveryStatus() {
        let dates = DateCache(epochSeconds: 784_111_777)
        dates.update(epochSeconds: 784_111_778)
        let later = "Date: Sun, 06 Nov 1994 08:49:38 GMT\r\nServer: trips\r\nX-Content-Type-Options: nosniff\r\n"
        #expect(String(decoding: dates.fieldLines, as: UTF8.self) == later)
        for (status, line) in [(HTTPStatus.ok, "HTTP/1.1 200 OK\r\n"), (.notFound, "HTTP/1.1 404 Not Found\r\n")] {
            for response in [HTTPResponse(status: status, body: [0x21]), HTTPResponse(status: status, body: [0x21]).prepared()] {
                var output: [UInt8] = []
                response.serialize(into: &output, omitContent: false, connection: .none, dates: dates)
                #expect(String(decoding: output, as: UTF8.self) == line + later + "Content-Length: 1\r\n\r\n!")
            }
        }
    }

    @Test func theConnectionFieldIsTheLastOfTheHead() {
        let written = Self.written(Self.response.prepared(), connection: .close)
        #expect(written.contains("Content-Length: 8\r\nConnection: close\r\n\r\n{\"id\":2}"))
    }

    @Test(arguments: [
        (RequestID.generated(0), "X-Request-ID: 0a1b2c3d-0-0\r\n"),
        (.generated(0xabc), "X-Request-ID: 0a1b2c3d-0-abc\r\n"),
        (.generated(.max), "X-Request-ID: 0a1b2c3d-0-ffffffffffffffff\r\n"),
        (.client("req-7.a_B"), "X-Request-ID: req-7.a_B\r\n"),
        (.client(String(repeating: "x", count: 200)), "X-Request-ID: \(String(repeating: "x", count: 200))\r\n"),
    ])
    func theRequestIDLineIsWrittenInOnePiece(id: RequestID, line: String) {
        var output: [UInt8] = []
        id.appendFieldLine(to: &output, prefix: Array("0a1b2c3d-0-".utf8))
        #expect(String(decoding: output, as: UTF8.self) == line)
        // "\r\n" is one Character: dropLast() drops the line end.
        #expect(IssuedRequestID(id: id, prefix: Array("0a1b2c3d-0-".utf8)).text == String(line.dropFirst(14).dropLast()))
    }

    /// An answer's id and trace lines, written together on the stack when they can be, come out
    /// as each written alone: every counter width, the shortest and longest inline prefixes,
    /// and the cases that take the longer way (a client's id, a `tracestate`, a long prefix).
    @Test(arguments: [
        (RequestID.generated(0), "0-"), (.generated(0xabc), "0a1b2c3d-0-"), (.generated(.max), String(repeating: "p", count: 28)),
        (.generated(0x1234_5678), String(repeating: "q", count: 29)), (.client("req-7"), "0a1b2c3d-0-"),
    ])
    func theIDAndTraceLinesAreWrittenAsEachAlone(id: RequestID, prefix: String) {
        for state in [nil, "congo=t61rcWkgMzE"] {
            var trace = Self.trace
            trace.state = state
            var alone: [UInt8] = Array("HTTP/1.1 204 No Content\r\n".utf8) + Self.dates.fieldLines
            id.appendFieldLine(to: &alone, prefix: Array(prefix.utf8))
            trace.appendFieldLines(to: &alone)
            alone += Array("\r\n".utf8)
            var together: [UInt8] = []
            HTTPResponse(status: .noContent).serialize(
                into: &together, omitContent: false, connection: .none, dates: Self.dates, requestID: (id, Array(prefix.utf8)),
                trace: trace)
            #expect(String(decoding: together, as: UTF8.self) == String(decoding: alone, as: UTF8.self))
            let text = IssuedRequestID(id: id, prefix: Array(prefix.utf8)).text  // written a digit at a time
            #expect(String(decoding: together, as: UTF8.self).contains("\r\nX-Request-ID: \(text)\r\ntraceparent: 00-"))
        }
    }

    @Test func aPrefixLongerThanTheStackLineIsWrittenTheLongWay() {
        let prefix = String(repeating: "p", count: 40)
        var output: [UInt8] = []
        RequestID.generated(0xff).appendFieldLine(to: &output, prefix: Array(prefix.utf8))
        #expect(String(decoding: output, as: UTF8.self) == "X-Request-ID: \(prefix)ff\r\n")
    }
}
