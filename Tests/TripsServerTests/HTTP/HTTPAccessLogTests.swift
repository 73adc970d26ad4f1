import Glibc
import Testing
@testable import TripsHTTP
@testable import TripsServer

/// A pipe whose write end an `AccessLog` writes to, read back whole.
final class LogPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe failed") }
        readEnd = ends[0]
        writeEnd = ends[1]
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Everything written so far.
    func drain() -> String {
        var collected: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            collected.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: collected, as: UTF8.self)
    }
}

@Suite struct HTTPAccessLogTests {
    /// A connection with request ids, an access log on a pipe, and a manual clock.
    private func harness(_ log: LogPipe, clock: ManualClock) -> (HTTPConnection, RequestIDGenerator, AccessLog) {
        let ids = RequestIDGenerator(loopIndex: 3)
        let accessLog = AccessLog(descriptor: log.writeEnd)
        let environment = ConnectionEnvironment(
            handler: SlowHandler(clock: clock), configuration: HTTPServerConfiguration(), sink: RecordingSink(),
            dates: DateCache(epochSeconds: 784_111_777), clock: clock, requestIDs: ids, accessLog: accessLog)
        let connection = HTTPConnection(id: ConnectionID(descriptor: 9, serial: 1), environment: environment, now: clock.now())
        return (connection, ids, accessLog)
    }

    /// Answers `/slow` after moving the manual clock 1.5 ms, so the logged duration is known.
    private final class SlowHandler: HTTPHandler {
        let clock: ManualClock
        init(clock: ManualClock) { self.clock = clock }
        func handle(_ request: HTTPRequest, context: inout RequestContext) -> HTTPReply {
            clock.advance(by: .microseconds(1500))
            return .now(HTTPResponse(status: .ok, body: Array("twelve bytes".utf8)))
        }
    }

    private func feed(_ connection: HTTPConnection, _ text: String, clock: ManualClock) -> String {
        var output: [UInt8] = []
        Array(text.utf8).withUnsafeBytes { connection.receive($0, now: clock.now(), output: &output) }
        return String(decoding: output, as: UTF8.self)
    }

    @Test func eachRequestGetsOneLogfmtLine() throws {
        let log = try LogPipe()
        let clock = ManualClock()
        let (connection, ids, accessLog) = harness(log, clock: clock)
        let response = feed(connection, "GET /slow?x=1 HTTP/1.1\r\nHost: a\r\n\r\nHEAD /b HTTP/1.1\r\nHost: a\r\n\r\n", clock: clock)
        let prefix = String(decoding: ids.prefix, as: UTF8.self)
        #expect(response.contains("X-Request-ID: \(prefix)1\r\n"))
        #expect(response.contains("X-Request-ID: \(prefix)2\r\n"))
        accessLog.flush()
        let lines = log.drain().split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("time="))
        #expect(lines[0].contains(" id=\(prefix)1 method=GET path=\"/slow?x=1\" status=200 bytes=12 duration_ms=1.500"))
        // Pipelined behind /slow: counted from when the loop read both (as nginx's
        // $request_time counts from its loop's time), so its wait is in it, as its client saw.
        #expect(lines[1].contains(" id=\(prefix)2 method=HEAD path=/b status=200 bytes=0 duration_ms=3.000"))
    }

    @Test func aSaneClientIdIsEchoedAndAStrangeOneReplaced() throws {
        let log = try LogPipe()
        let clock = ManualClock()
        let (connection, _, _) = harness(log, clock: clock)
        let sane = feed(connection, "GET / HTTP/1.1\r\nHost: a\r\nX-Request-ID: abc-123_x.y\r\n\r\n", clock: clock)
        #expect(sane.contains("X-Request-ID: abc-123_x.y\r\n"))
        let strange = feed(connection, "GET / HTTP/1.1\r\nHost: a\r\nX-Request-ID: a b\"c\r\n\r\n", clock: clock)
        #expect(!strange.contains("a b"))
        #expect(strange.contains("X-Request-ID: "))
        let tooLong = feed(
            connection, "GET / HTTP/1.1\r\nHost: a\r\nX-Request-ID: \(String(repeating: "a", count: 129))\r\n\r\n", clock: clock)
        #expect(!tooLong.contains(String(repeating: "a", count: 129)))
    }

    @Test func bytesThatNeverBecameARequestAreLoggedToo() throws {
        let log = try LogPipe()
        let clock = ManualClock()
        let (connection, _, accessLog) = harness(log, clock: clock)
        let response = feed(connection, "BREW / HTTP/1.1\r\nHost: a\r\n\r\n", clock: clock)
        #expect(response.hasPrefix("HTTP/1.1 501"))
        accessLog.flush()
        #expect(log.drain().contains(" method=- path=- status=501 "))
    }

    @Test func requestIDsAreEchoedOverASocket() async throws {
        try await withServer { _, port in
            try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("GET /a HTTP/1.1\r\nHost: x\r\nX-Request-ID: trace-42\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
                let first = try client.readResponse()
                let second = try client.readResponse()
                #expect(first.field("X-Request-ID") == "trace-42")
                let generated = try #require(second.field("X-Request-ID"))
                #expect(generated.split(separator: "-").count == 3)
            }
        }
    }
}
