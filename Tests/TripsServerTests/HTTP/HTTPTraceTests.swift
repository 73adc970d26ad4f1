import Foundation
import Glibc
import Testing

@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsServer

/// Read by one test thread at a time, after the server wrote to it.
extension LogPipe: @unchecked Sendable {}

extension LogPipe {
    /// The next `count` lines, waiting for them up to five seconds (the loop writes its log at
    /// the end of the turn that answered, so a line may follow its answer by a moment).
    func lines(_ count: Int) throws -> [String] {
        var text = ""
        let deadline = ContinuousClock.now + .seconds(5 * TestTimeout.scale)
        while text.filter({ $0 == "\n" }).count < count {
            guard ContinuousClock.now < deadline else { throw TestFailure("\(count) log lines did not come: \(text)") }
            var descriptor = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
            text += drain()
        }
        return text.split(separator: "\n").map(String.init)
    }
}

/// W3C Trace Context and the log formats, over real sockets.
@Suite struct HTTPTraceTests {
    static let traceID: String = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let clientSpan: String = "00f067aa0ba902b7"
    static let traceparent: String = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// Runs `body` against a server that logs every request to a pipe in `format`.
    private func withLoggingServer<T: Sendable>(
        _ format: LogFormat = .logfmt, _ body: @escaping @Sendable (Int, LogPipe) throws -> T
    ) async throws -> T {
        let log = try LogPipe()
        return try await withServer(configure: {
            $0.logsRequests = true
            $0.logFormat = format
            $0.accessLogDescriptor = log.writeEnd
        }) { _, port in
            try await onOwnThread { try body(port, log) }
        }
    }

    /// The answer's `traceparent`, split into its four fields.
    private func traceparent(_ response: TestResponse) throws -> [String] {
        let value = try #require(response.field("traceparent"))
        let fields = value.split(separator: "-").map(String.init)
        #expect(fields.count == 4 && fields[0] == "00" && fields[1].count == 32 && fields[2].count == 16 && fields[3].count == 2)
        return fields
    }

    @Test func aTraceparentIsContinuedWithTheServersOwnSpanAndLogged() async throws {
        try await withLoggingServer { port, log in
            let client = try TestClient(port: port)
            try client.send("GET /a HTTP/1.1\r\nHost: x\r\ntraceparent: \(Self.traceparent)\r\n\r\n")
            let answer = try client.readResponse()
            #expect(answer.status == 200)
            let fields = try traceparent(answer)
            #expect(fields[1] == Self.traceID)
            #expect(fields[2] != Self.clientSpan)
            #expect(fields[3] == "01")
            #expect(answer.field("tracestate") == nil)
            let line = try #require(try log.lines(1).first)
            #expect(line.hasSuffix(" peer=127.0.0.1 trace_id=\(Self.traceID) span_id=\(fields[2]) parent_span_id=\(Self.clientSpan)"))
        }
    }

    @Test(arguments: [
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-and-more",
    ])
    func aMalformedTraceparentStartsANewTrace(value: String) async throws {
        try await withLoggingServer { port, log in
            let client = try TestClient(port: port)
            try client.send("GET /a HTTP/1.1\r\nHost: x\r\ntraceparent: \(value)\r\ntracestate: rojo=1\r\n\r\n")
            let answer = try client.readResponse()
            #expect(answer.status == 200)
            let fields = try traceparent(answer)
            #expect(fields[1] != Self.traceID && fields[1] != String(repeating: "0", count: 32))
            #expect(fields[3] == "00")
            #expect(answer.field("tracestate") == nil, "no tracestate without a valid traceparent")
            let line = try #require(try log.lines(1).first)
            #expect(line.hasSuffix(" trace_id=\(fields[1]) span_id=\(fields[2])"), "no parent span")
        }
    }

    @Test func aTracestateIsPassedThroughWithinItsBounds() async throws {
        try await withLoggingServer { port, _ in
            let client = try TestClient(port: port)
            let request = "GET /a HTTP/1.1\r\nHost: x\r\ntraceparent: \(Self.traceparent)\r\n"
            try client.send(request + "tracestate: rojo=00f067aa0ba902b7\r\ntracestate: congo=t61rcWkgMzE\r\n\r\n")
            #expect(try client.readResponse().field("tracestate") == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
            let many = (1...33).map { "k\($0)=v" }.joined(separator: ",")
            try client.send(request + "tracestate: \(many)\r\n\r\n")
            let tooMany = try client.readResponse()
            #expect(tooMany.field("tracestate") == nil)
            #expect(try traceparent(tooMany)[1] == Self.traceID, "the trace goes on without its state")
            let wide = ["a", "b", "c"].map { "\($0)=" + String(repeating: "x", count: 200) }.joined(separator: ",")
            try client.send(request + "tracestate: \(wide)\r\n\r\n")
            #expect(try client.readResponse().field("tracestate") == nil, "over 512 bytes")
        }
    }

    @Test func everyAnswerCarriesATraceparentTheConnectionsOwnErrorsHEADAndDeferredOnesToo() async throws {
        try await withLoggingServer { port, _ in
            let client = try TestClient(port: port)
            try client.send("HEAD /a HTTP/1.1\r\nHost: x\r\ntraceparent: \(Self.traceparent)\r\n\r\n")
            #expect(try traceparent(client.readResponse(head: true))[1] == Self.traceID)
            try client.send("GET /defer HTTP/1.1\r\nHost: x\r\ntraceparent: \(Self.traceparent)\r\n\r\n")
            #expect(try traceparent(client.readResponse())[1] == Self.traceID)
            try client.send("GET /nocontent HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try traceparent(client.readResponse()).count == 4)
            try client.send("BREW / HTTP/1.1\r\nHost: x\r\ntraceparent: \(Self.traceparent)\r\n\r\n")
            let refused = try client.readResponse()
            #expect(refused.status == 501)
            #expect(try traceparent(refused)[1] != Self.traceID, "bytes that never became a request start a trace of their own")
        }
    }

    @Test func jsonLinesCarryOpenTelemetryNames() async throws {
        try await withLoggingServer(.json) { port, log in
            let client = try TestClient(port: port)
            try client.send(
                "POST /echo?x=1&y=%22 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\ntraceparent: \(Self.traceparent)\r\n\r\nhello")
            let answer = try client.readResponse()
            try client.send("BREW / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try client.readResponse()
            let lines = try log.lines(2)
            let line = try #require(
                try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any], "\(lines[0])")
            #expect(line["level"] as? String == "info")
            #expect(line["event"] as? String == "http.server.request")
            #expect((line["timestamp"] as? String)?.hasSuffix("Z") == true)
            #expect(line["request_id"] as? String == answer.field("X-Request-ID"))
            #expect(line["http.request.method"] as? String == "POST")
            #expect(line["url.path"] as? String == "/echo")
            #expect(line["url.query"] as? String == "x=1&y=%22")
            #expect(line["http.response.status_code"] as? Int == 200)
            #expect(line["http.request.body.size"] as? Int == 5)
            #expect(line["http.response.body.size"] as? Int == 5)
            #expect((line["http.server.request.duration"] as? Double).map { $0 >= 0 && $0 < 60 } == true)
            #expect(line["network.peer.address"] as? String == "127.0.0.1")
            #expect(line["trace_id"] as? String == Self.traceID)
            #expect(line["span_id"] as? String == (try traceparent(answer)[2]))
            #expect(line["parent_span_id"] as? String == Self.clientSpan)

            let unparsed = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
            #expect(unparsed["http.response.status_code"] as? Int == 501)
            #expect(unparsed["http.request.method"] == nil && unparsed["url.path"] == nil)
        }
    }

    @Test(arguments: LogFormat.allCases)
    func aHostilePathCannotForgeALineOrAField(format: LogFormat) async throws {
        try await withLoggingServer(format) { port, log in
            let client = try TestClient(port: port)
            let path = #"/a"b\"},"http.response.status_code":500,"x":"=c%0Astatus=500"#
            try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            try client.send("GET /a\nstatus=500 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 400)
            let lines = try log.lines(2)
            #expect(lines.count == 2)
            switch format {
            case .json:
                let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
                #expect(first["url.path"] as? String == path)
                #expect(first["http.response.status_code"] as? Int == 200)
                #expect(first["x"] == nil)
                let second = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
                #expect(second["http.response.status_code"] as? Int == 400)
            case .logfmt:
                #expect(lines[0].contains(#" path="/a\"b\\\"},\"http.response.status_code\":500,\"x\":\"=c%0Astatus=500" status=200 "#))
                #expect(lines[1].contains(" method=- path=- status=400 "))
            }
        }
    }
}
