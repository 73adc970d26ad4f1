import Testing

@testable import TripsHTTP
@testable import TripsServer

/// Feeds `chunks` the way a connection does (keeping unconsumed bytes) and collects the events.
func parseEvents(
    _ chunks: [[UInt8]], limits: HTTPServerConfiguration.Limits = .init(),
    contentLimit: @escaping (HTTPRequest) -> Int? = { _ in nil }
) -> [RequestParser.Event] {
    var parser = RequestParser(limits: limits, contentLimit: contentLimit)
    var buffer: [UInt8] = []
    var events: [RequestParser.Event] = []
    for chunk in chunks {
        buffer += chunk
        while true {
            let step = buffer.withUnsafeBytes { parser.parse($0) }
            buffer.removeFirst(step.consumed)
            if case .needMoreBytes = step.event { break }
            events.append(step.event)
            if case .failure = step.event { return events }
        }
    }
    return events
}

func parseEvents(
    _ text: String, limits: HTTPServerConfiguration.Limits = .init(), contentLimit: @escaping (HTTPRequest) -> Int? = { _ in nil }
) -> [RequestParser.Event] {
    parseEvents([Array(text.utf8)], limits: limits, contentLimit: contentLimit)
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite struct HTTPRequestParserTests {
    /// Whether each request's `Host` names this machine, and its value, on one connection whose
    /// requests change it (the parser remembers the last valid value and its string); none for a
    /// request without one.
    @Test func theParserTellsALoopbackHostOfEachRequest() throws {
        let hosts = [
            "localhost", "LOCALHOST:8080", "127.0.0.1", "127.0.0.1", "127.9.8.7:1", "[::1]:80", "[::1]", "example.com",
            "127.0.0.1.example", "128.0.0.1", "[::2]", "localhost.", "",
        ]
        let text = hosts.map { "GET / HTTP/1.1\r\nHost: \($0)\r\n\r\n" }.joined() + "GET / HTTP/1.0\r\n\r\n"
        let flags = parseEvents(text).map { event -> Bool? in
            guard case .request(let request) = event else { return nil }
            return request.namesLoopbackHost
        }
        #expect(flags == hosts.map { hosts.firstIndex(of: $0)! < 7 } + [false])
        let values = parseEvents(text).map { event -> String? in
            guard case .request(let request) = event else { return nil }
            return request.headerFields[.host]
        }
        #expect(values == hosts + [nil])
        guard case .request(var request)? = parseEvents("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").first else {
            Issue.record("no request")
            return
        }
        #expect(request.namesLoopbackHost)
        request.headerFields[.host] = "example.com"
        #expect(!request.namesLoopbackHost)  // fields changed since the parser: read again when asked
    }

    @Test func aSimpleGetParsesIntoAValue() throws {
        let events = parseEvents(
            "GET /trips/7?sort=name&x=a+b HTTP/1.1\r\nHost: example.com\r\nAccept: application/json\r\nX-Twice: 1\r\nx-twice: 2\r\n\r\n")
        guard case .request(let request) = try #require(events.first) else {
            Issue.record("expected a request, got \(events)")
            return
        }
        #expect(request.method == .get)
        #expect(request.target == "/trips/7?sort=name&x=a+b")
        #expect(request.path == "/trips/7")
        #expect(request.query == "sort=name&x=a+b")
        #expect(request.version == .http1_1)
        #expect(request.headerFields[.host] == "example.com")
        #expect(request.headerFields["ACCEPT"] == "application/json")
        #expect(request.headerFields.values(for: "x-twice") == ["1", "2"])
        #expect(request.headerFields.map(\.name.rawName) == ["Host", "Accept", "X-Twice", "x-twice"])
        #expect(request.queryItems == [HTTPQueryItem(name: "sort", value: "name"), HTTPQueryItem(name: "x", value: "a b")])
        #expect(request.body.isEmpty)
        #expect(request.keepAlive)
    }

    @Test(arguments: [
        // (raw head, expected error)
        ("GET /\r\nHost: a\r\n\r\n", HTTPParseError.malformedRequestLine),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine),
        (" GET / HTTP/1.1\r\nHost: a\r\n\r\n", .malformedRequestLine),
        ("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", .invalidVersion),
        ("GE(T / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidMethod),
        ("G\u{1}ET / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidMethod),
        ("BREW / HTTP/1.1\r\nHost: a\r\n\r\n", .methodNotImplemented),
        ("get / HTTP/1.1\r\nHost: a\r\n\r\n", .methodNotImplemented),
        ("GET /a\u{7F} HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        ("GET /é HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        ("GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        ("GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        ("GET * HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget),
        ("GET / HTTP/1\r\nHost: a\r\n\r\n", .invalidVersion),
        ("GET / http/1.1\r\nHost: a\r\n\r\n", .invalidVersion),
        ("GET / HTTP/1.1x\r\nHost: a\r\n\r\n", .invalidVersion),
        ("GET / HTTP/11.1\r\nHost: a\r\n\r\n", .invalidVersion),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", .versionNotSupported),
        ("GET / HTTP/1.2\r\nHost: a\r\n\r\n", .versionNotSupported),
        ("GET / HTTP/0.9\r\nHost: a\r\n\r\n", .versionNotSupported),
        ("GET / HTTP/3.0\r\nHost: a\r\n\r\n", .versionNotSupported),
        ("GET / HTTP/1.1\nHost: a\r\n\r\n", .invalidLineEnding),
        ("GET / HTTP/1.1\r\nHost: a\n\r\n", .invalidLineEnding),
        ("GET / HTTP/1.1\r\nHost: a\r\n\n", .invalidLineEnding),
        ("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", .invalidLineEnding),
        ("GET / HTTP/1.1\r\nHost\r: a\r\n\r\n", .invalidLineEnding),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n  folded\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\n\tHost: a\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nHo(st: a\r\n\r\n", .invalidFieldName),
        ("GET / HTTP/1.1\r\n: a\r\nHost: a\r\n\r\n", .invalidFieldName),
        ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", .invalidFieldName),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n", .invalidFieldValue),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{7F}\r\n\r\n", .invalidFieldValue),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: \u{1B}[31m\r\n\r\n", .invalidFieldValue),
        ("GET / HTTP/1.1\r\n\r\n", .missingHost),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .multipleHost),
        ("GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", .multipleHost),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1.0\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5 5\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .conflictingContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 6\r\n\r\n", .conflictingContentLength),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", .contentLengthWithTransferEncoding),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .transferEncodingInHTTP1_0),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .chunkedNotFinal),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", .chunkedNotFinal),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .chunkedNotFinal),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferCoding),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\u{1}\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n", .invalidChunkTerminator),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\rX", .invalidChunkTerminator),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX : y\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nHost: a\r\nExpect: the-unexpected\r\n\r\n", .unsupportedExpectation),
        ("GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue, foo\r\n\r\n", .unsupportedExpectation),
        // Chunk lines: whitespace only as BWS before ";" (or around "="), and every extension named.
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\t\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;=v\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=v \r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\"v\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a;\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0 \r\n\r\n", .invalidChunkSize),
        // Host = uri-host [ ":" port ]
        ("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: user@example.com\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: example.com:http\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: example.com:65536\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: example.com:80:80\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: []\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a%2\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.0\r\nHost: a\"b\r\n\r\n", .invalidHost),
    ])
    func malformedRequestsAreRejectedWithTheirError(raw: String, expected: HTTPParseError) {
        #expect(parseEvents(raw) == [.failure(expected)])
    }

    /// The parser remembers the last valid `Host` of a connection: a request naming another
    /// host is checked in full, however many valid ones came before.
    @Test(arguments: ["exa mple.com", "example.co/", "example.com:99999", "exam\"e.com", "example.com:8o"])
    func everyRequestsHostIsCheckedWhateverTheOneBeforeIt(invalid: String) {
        let valid = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"
        let other = "GET / HTTP/1.1\r\nHost: Example.com:80\r\n\r\n"
        let events = parseEvents(valid + valid + other + "GET / HTTP/1.1\r\nHost: \(invalid)\r\n\r\n")
        #expect(events.count == 4)
        #expect(events.last == .failure(.invalidHost))
    }

    @Test(arguments: [
        (HTTPParseError.methodNotImplemented, 501), (.versionNotSupported, 505), (.requestLineTooLong, 414),
        (.headerSectionTooLarge, 431), (.tooManyHeaderFields, 431), (.contentTooLarge, 413),
        (.unsupportedExpectation, 417), (.unsupportedTransferCoding, 501), (.missingHost, 400),
        (.chunkedNotFinal, 400), (.invalidHost, 400),
    ])
    func errorsMapToTheirStatus(error: HTTPParseError, code: Int) {
        #expect(error.status.code == code)
    }

    @Test func everyErrorHasADetailSentenceAndAProblemBody() {
        for error in HTTPParseError.allCases {
            #expect(error.detail.hasSuffix("."))
            #expect(error.response().headerFields[.contentType] == "application/problem+json")
        }
    }

    @Test func aTLSHandshakeIsRejectedBeforeAnyLineEnd() {
        #expect(parseEvents([[0x16, 0x03, 0x01, 0x02, 0x00]]) == [.failure(.invalidMethod)])
    }

    @Test(arguments: [
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 005\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: a\r\ncontent-length: 5\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n5;ext=1;x\r\nhello\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhe\r\n3 ; x\r\nllo\r\n0\r\nTrailer: 1\r\n\r\n",
        "\r\nPOST / HTTP/1.1\r\nHost: a\r\nContent-Length:5\r\n\r\nhello",
        "POST http://example.com/ HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=v\r\nhello\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 ; a = \"q \\\" ;\" ; b\r\nhello\r\n0;last\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: [::1]:8080\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: xn--bcher-kva.example:\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: my%20host.local\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost:\r\nContent-Length: 5\r\n\r\nhello",
    ])
    func validVariantsAreAccepted(raw: String) throws {
        let events = parseEvents(raw)
        guard events.count == 1, case .request(let request) = events[0] else {
            Issue.record("expected one request, got \(events)")
            return
        }
        #expect(request.body == bytes("hello"))
        #expect(request.path == "/")
    }

    @Test func asteriskFormIsAcceptedForOptionsOnly() throws {
        let events = parseEvents("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n")
        guard case .request(let request) = try #require(events.first) else {
            Issue.record("\(events)")
            return
        }
        #expect(request.method == .options)
        #expect(request.path == "*")
    }

    @Test func absoluteFormIsSplitIntoPathAndQuery() throws {
        let events = parseEvents("GET HTTP://example.com:80/trips?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")
        guard case .request(let request) = try #require(events.first) else {
            Issue.record("\(events)")
            return
        }
        #expect(request.path == "/trips")
        #expect(request.query == "x=1")
    }

    /// CONNECT asks for a tunnel, which this origin server never makes: 501.
    @Test func connectIsNotImplemented() throws {
        let events = parseEvents("CONNECT localhost:80 HTTP/1.1\r\nHost: localhost:80\r\n\r\n")
        #expect(events.first == .failure(.methodNotImplemented), "\(events)")
    }

    /// An absolute-form target's authority stands for `Host` (RFC 9112 §3.2.2): the server
    /// ignores the field and uses the target's, so the names it answers for are checked
    /// against the authority the request names; one that is empty, has user information or
    /// is not a host is 400.
    @Test func anAbsoluteFormTargetsAuthorityStandsForHost() throws {
        for (target, host, loopback) in [
            ("http://evil.example/trips/2", "localhost", false), ("HTTPS://localhost:8443/trips", "evil.example", true),
            ("http://127.0.0.1?x=1", "evil.example", true),
        ] {
            let events = parseEvents("GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            guard case .request(let request) = try #require(events.first) else {
                Issue.record("\(target): \(events)")
                continue
            }
            #expect(request.headerFields.values(for: .host) == [String(target.split(separator: "/")[1].split(separator: "?")[0])])
            #expect(request.namesLoopbackHost == loopback, "\(target)")
        }
        for target in ["http:///trips/2", "http://u@localhost/trips/2", "http://localhost:99999/trips/2", "https://?x"] {
            let events = parseEvents("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n")
            guard case .failure(let error) = try #require(events.first) else {
                Issue.record("\(target): \(events)")
                continue
            }
            #expect(error == .invalidTarget, "\(target)")
        }
    }

    // MARK: - Split points

    static let chunkedSample = bytes(
        "POST /trips?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\n"
            + "Transfer-Encoding: chunked\r\nX-Request-ID: abc\r\n\r\n"
            + "7;name=value\r\n{\"a\":1}\r\n3\r\n[2]\r\n0\r\nChecksum: 42\r\n\r\n")
    static let lengthSample = bytes(
        "PUT /trips/1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\nConnection: close\r\n\r\n0123456789")

    @Test(arguments: [chunkedSample, lengthSample])
    func everySplitPointGivesTheSameRequest(sample: [UInt8]) throws {
        let whole = parseEvents([sample])
        #expect(whole.count == 1)
        guard case .request(let expected) = try #require(whole.first) else {
            Issue.record("\(whole)")
            return
        }
        for split in 0...sample.count {
            let events = parseEvents([Array(sample[..<split]), Array(sample[split...])])
            #expect(events == [.request(expected)], "split at \(split)")
        }
        let byteByByte = parseEvents(sample.map { [$0] })
        #expect(byteByByte == [.request(expected)])
    }

    @Test func theChunkedSampleHasItsBodyAndNoTrailerFields() throws {
        guard case .request(let request) = try #require(parseEvents([Self.chunkedSample]).first) else { return }
        #expect(request.body == bytes("{\"a\":1}[2]"))
        #expect(request.headerFields["checksum"] == nil)
        #expect(request.headerFields[.xRequestID] == "abc")
    }

    @Test func pipelinedRequestsComeOutInOrderAndLeaveTheRest() {
        let raw = bytes(
            "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET /b HTTP/1.1\r\nHost: a\r\n\r\nGET /c HTT")
        var parser = RequestParser()
        var offset = 0
        var paths: [String] = []
        while true {
            let step = raw[offset...].withUnsafeBytes { parser.parse($0) }
            offset += step.consumed
            guard case .request(let request) = step.event else { break }
            paths.append(request.path)
        }
        #expect(paths == ["/a", "/b"])
        #expect(Array(raw[offset...]) == bytes("GET /c HTT"))
    }

    // MARK: - Expect

    @Test func continueIsAskedForOnlyWhenNoContentHasArrived() {
        let head = "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 5\r\n\r\n"
        #expect(parseEvents([bytes(head), bytes("hello")]).count == 2)
        guard case .sendContinue = parseEvents([bytes(head), bytes("hello")]).first else {
            Issue.record("expected sendContinue first")
            return
        }
        let together = parseEvents(head + "hello")
        #expect(together.count == 1)
        if case .sendContinue = together.first { Issue.record("content already arrived") }
    }

    @Test func aRefusedRequestGetsItsErrorInsteadOfContinue() {
        let events = parseEvents("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2000000\r\n\r\n")
        #expect(events == [.failure(.contentTooLarge)])
    }

    @Test func noContinueForABodilessRequest() {
        let events = parseEvents("GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n")
        guard events.count == 1, case .request = events[0] else {
            Issue.record("\(events)")
            return
        }
    }

    // MARK: - Keep-alive

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: foo, CLOSE\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
        ("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false),
    ])
    func keepAliveFollowsVersionAndConnection(raw: String, keepAlive: Bool) throws {
        guard case .request(let request) = try #require(parseEvents(raw).first) else {
            Issue.record("")
            return
        }
        #expect(request.keepAlive == keepAlive)
        #expect(HTTPRequest.defaultKeepAlive(version: request.version, fields: request.headerFields) == keepAlive)
    }

    // MARK: - Limits

    @Test func theRequestLineLimitHoldsAtItsEdge() {
        let limits = HTTPServerConfiguration.Limits()
        let fixed = "GET / HTTP/1.1".utf8.count
        let atLimit = "GET /" + String(repeating: "a", count: limits.maxRequestLineLength - fixed) + " HTTP/1.1"
        #expect(atLimit.utf8.count == limits.maxRequestLineLength)
        guard case .request = parseEvents(atLimit + "\r\nHost: a\r\n\r\n").first else {
            Issue.record("at limit")
            return
        }
        let past = "GET /a" + String(repeating: "a", count: limits.maxRequestLineLength - fixed) + " HTTP/1.1"
        #expect(parseEvents(past + "\r\nHost: a\r\n\r\n") == [.failure(.requestLineTooLong)])
        // Refused before the line ends: nothing past the limit is kept.
        #expect(parseEvents("GET /" + String(repeating: "a", count: limits.maxRequestLineLength)) == [.failure(.requestLineTooLong)])
        #expect(parseEvents("GET /" + String(repeating: "a", count: limits.maxRequestLineLength - 5)) == [])
    }

    @Test func theHeaderSectionLimitHoldsAtItsEdge() {
        let limit = HTTPServerConfiguration.Limits().maxHeaderSectionLength
        func head(sectionLength: Int) -> String {
            let fixed = "Host: a\r\nX: \r\n\r\n".utf8.count
            return "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: sectionLength - fixed) + "\r\n\r\n"
        }
        guard case .request = parseEvents(head(sectionLength: limit)).first else {
            Issue.record("at limit")
            return
        }
        #expect(parseEvents(head(sectionLength: limit + 1)) == [.failure(.headerSectionTooLarge)])
        let unterminated = "GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: limit)
        #expect(parseEvents(unterminated) == [.failure(.headerSectionTooLarge)])
    }

    @Test func theFieldCountLimitHoldsAtItsEdge() {
        let limit = HTTPServerConfiguration.Limits().maxHeaderFieldCount
        func head(fields: Int) -> String {
            "GET / HTTP/1.1\r\nHost: a\r\n" + (1..<fields).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        }
        guard case .request(let request) = parseEvents(head(fields: limit)).first else {
            Issue.record("at limit")
            return
        }
        #expect(request.headerFields.count == limit)
        #expect(parseEvents(head(fields: limit + 1)) == [.failure(.tooManyHeaderFields)])
    }

    @Test func theBodyLimitHoldsForContentLengthBeforeAnyContent() {
        let limit = HTTPServerConfiguration.Limits().maxBodyLength
        let atLimit = bytes("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(limit)\r\n\r\n") + [UInt8](repeating: 1, count: limit)
        guard case .request(let request) = parseEvents([atLimit]).first else {
            Issue.record("at limit")
            return
        }
        #expect(request.body.count == limit)
        #expect(
            parseEvents("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(limit + 1)\r\n\r\n") == [.failure(.contentTooLarge)])
    }

    @Test func theBodyLimitHoldsForChunksBeforeTheChunkArrives() {
        let limit = HTTPServerConfiguration.Limits().maxBodyLength
        let head = bytes("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
        let half = limit / 2
        let first = bytes(String(half, radix: 16) + "\r\n") + [UInt8](repeating: 1, count: half) + bytes("\r\n")
        let rest = limit - half
        let atLimit = head + first + bytes(String(rest, radix: 16) + "\r\n") + [UInt8](repeating: 2, count: rest) + bytes("\r\n0\r\n\r\n")
        guard case .request(let request) = parseEvents([atLimit]).first else {
            Issue.record("at limit")
            return
        }
        #expect(request.body.count == limit)
        let past = head + first + bytes(String(rest + 1, radix: 16) + "\r\n")
        #expect(parseEvents([past]) == [.failure(.contentTooLarge)])
    }

    @Test func aRouteCanTakeMoreOrLessContentThanTheDefault() {
        let photoLimit = 3 * 1024 * 1024
        let limitForPath: (HTTPRequest) -> Int? = { head in
            switch head.path {
            case "/photo": photoLimit
            case "/small": 10
            default: nil
            }
        }
        func post(_ path: String, length: Int) -> [RequestParser.Event] {
            let request =
                bytes("POST \(path) HTTP/1.1\r\nHost: a\r\nContent-Length: \(length)\r\n\r\n") + [UInt8](repeating: 7, count: length)
            return parseEvents([request], contentLimit: limitForPath)
        }
        let overDefault = HTTPServerConfiguration.Limits().maxBodyLength + 1
        guard case .request(let photo) = post("/photo", length: overDefault).first else {
            Issue.record("a photo over the default limit was refused")
            return
        }
        #expect(photo.body.count == overDefault)
        #expect(post("/", length: overDefault) == [.failure(.contentTooLarge)])
        #expect(
            parseEvents("POST /photo HTTP/1.1\r\nHost: a\r\nContent-Length: \(photoLimit + 1)\r\n\r\n", contentLimit: limitForPath)
                == [.failure(.contentTooLarge)])
        #expect(post("/small", length: 11) == [.failure(.contentTooLarge)])
        let chunked = bytes("POST /small HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n")
        #expect(parseEvents([chunked], contentLimit: limitForPath) == [.failure(.contentTooLarge)])
    }

    @Test func hostByteMasksMatchTheGrammar() {
        for byte in UInt8(0)...UInt8(255) {
            #expect(isHostByte(byte) == (isUnreserved(byte) || isSubDelimiter(byte)), "byte \(byte)")
        }
    }
}
