import Foundation
import Glibc
import Synchronization
import Testing
import TripsTestSupport

@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsServer

/// The server over real sockets on an ephemeral port.
@Suite struct HTTPServerTests {
    @Test(arguments: IOEngine.allCases)
    func keepAliveServesSeveralRequestsOnOneConnection(engine: IOEngine) async throws {
        try await withServer(engine: engine) { _, port in
            let statuses = try await onOwnThread {
                let client = try TestClient(port: port)
                var result: [String] = []
                for path in ["/a", "/b", "/c"] {
                    try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                    let response = try client.readResponse()
                    result.append("\(response.status) \(response.text) \(response.field("Connection") ?? "-")")
                    #expect(response.field("Date")?.hasSuffix(" GMT") == true)
                    #expect(response.field("Server") == "trips")
                }
                return result
            }
            #expect(statuses == ["200 hello /a -", "200 hello /b -", "200 hello /c -"])
        }
    }

    @Test(arguments: IOEngine.allCases)
    func pipelinedRequestsInOneWriteAreAnsweredInOrder(engine: IOEngine) async throws {
        try await withServer(engine: engine) { _, port in
            let bodies = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send(
                    "GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /defer?2 HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nthirdGET /fourth HTTP/1.1\r\nHost: x\r\n\r\n")
                return try (0..<4).map { _ in try client.readResponse().text }
            }
            #expect(bodies == ["hello /first", "deferred 2", "third", "hello /fourth"])
        }
    }

    @Test func expectContinueGetsAnInterimResponseBeforeTheBodyIsSent() async throws {
        try await withServer { _, port in
            let (interim, final) = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
                let interim = try client.readResponse()
                try client.send("body")
                return (interim.status, try client.readResponse())
            }
            #expect(interim == 100)
            #expect(final.status == 200)
            #expect(final.text == "body")
        }
    }

    @Test func anUnknownExpectationGets417AndTheConnectionCloses() async throws {
        try await withServer { _, port in
            let (status, closed) = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: gifts\r\nContent-Length: 4\r\n\r\n")
                return (try client.readResponse().status, try client.readsEOF())
            }
            #expect(status == 417)
            #expect(closed)
        }
    }

    /// 1,000 pipelined requests for 16 MiB of answers, sent at once by a client that reads
    /// nothing: the server answers until its 64 KiB backlog and the sockets' buffers (up to
    /// 4 MiB, `tcp_wmem`) are full, far from all of them, then answers the rest, in order, as
    /// the client reads.
    @Test(.tags(.slow), arguments: IOEngine.allCases)
    func pipelinedRequestsOfAClientThatDoesNotReadWaitUntilItReads(engine: IOEngine) async throws {
        let handler = TestHandler()
        try await withServer(handler: handler, engine: engine, configure: { $0.eventLoopCount = 1 }) { _, port in
            let count = 1_000
            let answeredBeforeReading = try await onOwnThread {
                let greedy = try TestClient(port: port, receiveBuffer: 4096)
                try greedy.send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: count))
                // Two exchanges on another connection of the same loop: by the second answer,
                // the loop has handled what the greedy client sent before.
                let other = try TestClient(port: port)
                for _ in 0..<2 { _ = try other.exchange(TestRequest(method: "GET", target: "/other")) }
                let answered = handler.bigAnswers.load(ordering: .relaxed)
                for _ in 0..<count {
                    let response = try greedy.readResponse()
                    guard response.status == 200, response.body.count == 16 * 1024 else { throw TestFailure("\(response.status)") }
                }
                return answered
            }
            #expect(answeredBeforeReading < count / 2)
            #expect(handler.bigAnswers.load(ordering: .relaxed) == count)
        }
    }

    /// One connection past `maxConnections` is accepted and closed at once; a place that
    /// frees up serves the next.
    @Test(arguments: IOEngine.allCases)
    func aConnectionPastTheMostIsClosedAtOnceAndAFreedPlaceIsTakenAgain(engine: IOEngine) async throws {
        try await withServer(engine: engine, configure: { $0.limits.maxConnections = 2 }) { _, port in
            try await onOwnThread {
                var served = [try TestClient(port: port), try TestClient(port: port)]
                for client in served {
                    guard try client.exchange(TestRequest(method: "GET", target: "/a")).status == 200 else {
                        throw TestFailure("not served")
                    }
                }
                let third = try TestClient(port: port)
                try? third.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
                guard try third.readsEOF() else { throw TestFailure("the third connection was served") }
                served.removeFirst()  // closes it
                // The place frees once the server has seen the close: try until one is served.
                for _ in 0..<1_000 {
                    let next = try TestClient(port: port)
                    try? next.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
                    if (try? next.readResponse().status) == 200 { return }
                }
                throw TestFailure("no connection was served after one closed")
            }
        }
    }

    @Test func aBodyTricklingUnderTheMinimumRateGets408BeforeTheStallTimeout() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { _, port in
            let client = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10000\r\n\r\n")
                #expect(try client.readResponse().status == 100)
                try client.send("a")
                return UncheckedBox(client)
            }
            clock.advance(by: .seconds(11))  // under the 30 s stall, past the 10 s grace with 1 byte
            let (response, closed) = try await onOwnThread { (try client.value.readResponse(), try client.value.readsEOF()) }
            #expect(response.status == 408)
            #expect(response.text.contains("too slowly"))
            #expect(closed)
        }
    }

    @Test func headHasGetsFieldsAndNoContent() async throws {
        try await withServer { _, port in
            let (head, next) = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("HEAD /abc HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = try client.readResponse(head: true)
                try client.send("GET /abc HTTP/1.1\r\nHost: x\r\n\r\n")
                return (head, try client.readResponse())
            }
            #expect(head.status == 200)
            #expect(head.field("Content-Length") == "10")
            #expect(head.body.isEmpty)
            #expect(next.text == "hello /abc")  // no stray content came before it
        }
    }

    @Test(
        arguments: [
            ("GET / HTTP/1.0\r\n\r\n", "close", true),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "keep-alive", false),
            ("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "close", true),
            ("GET / HTTP/1.1\r\nHost: x\r\n\r\n", nil, false),
        ] as [(String, String?, Bool)])
    func connectionsCloseByVersionAndConnectionField(request: String, field: String?, closes: Bool) async throws {
        try await withServer { _, port in
            let (response, followUp) = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send(request)
                let response = try client.readResponse()
                if closes { return (response, try client.readsEOF() ? "closed" : "open") }
                try client.send("GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
                return (response, try client.readResponse().text)
            }
            #expect(response.field("Connection") == field)
            #expect(followUp == (closes ? "closed" : "hello /again"))
        }
    }

    @Test func aTooLargeBodyIsRefusedBeforeItIsSent() async throws {
        try await withServer { _, port in
            let (status, closed) = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n")
                return (try client.readResponse().status, try client.readsEOF())
            }
            #expect(status == 413)
            #expect(closed)
        }
    }

    @Test(arguments: IOEngine.allCases)
    func aBodyAtTheLimitIsEchoed(engine: IOEngine) async throws {
        try await withServer(engine: engine) { _, port in
            let body = [UInt8](repeating: UInt8(ascii: "z"), count: 1_048_576)
            let response = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send(Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n".utf8) + body)
                return try client.readResponse()
            }
            #expect(response.status == 200)
            #expect(response.body == body)
        }
    }

    @Test(arguments: [
        ("GET /" + String(repeating: "a", count: 8200) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414),
        ("GET / HTTP/1.1\r\nHost: x\r\nX: " + String(repeating: "a", count: 16400) + "\r\n\r\n", 431),
        ("GET / HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X: 1\r\n", count: 100) + "\r\n", 431),
        ("GET / HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400),
        ("GET / HTTP/1.1\nHost: x\n\n", 400),
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", 400),
        ("\u{16}\u{03}\u{01}\u{00}", 400),
    ])
    func malformedBytesGetAProblemThenCloseAndTheServerGoesOn(raw: String, code: Int) async throws {
        try await withServer { _, port in
            let (response, closed, next) = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send(raw)
                let response = try client.readResponse()
                let closed = try client.readsEOF()
                let another = try TestClient(port: port)
                try another.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
                return (response, closed, try another.readResponse().text)
            }
            #expect(response.status == code)
            #expect(response.field("Content-Type") == "application/problem+json")
            #expect(response.field("Connection") == "close")
            #expect(response.text.contains("\"status\":\(code)"))
            #expect(closed)
            #expect(next == "hello /ok")
        }
    }

    /// The server's clock stands still, so the slow clients never time out: the fast request
    /// is answered only if no half-sent request holds the loop (otherwise the client's receive
    /// timeout fails the test). No wall-clock bound, which a loaded machine would break.
    @Test(arguments: IOEngine.allCases)
    func aRequestIsServedWhile200SlowClientsHoldHalfSentRequests(engine: IOEngine) async throws {
        try await withServer(clock: ManualClock(), engine: engine) { _, port in
            let text = try await onOwnThread {
                let slow = try (0..<200).map { index in
                    let client = try TestClient(port: port)
                    try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nslow \(index)")
                    return client
                }
                let client = try TestClient(port: port)
                try client.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
                let text = try client.readResponse().text
                withExtendedLifetime(slow) {}
                return text
            }
            #expect(text == "hello /fast")
        }
    }

    @Test func ipv6LoopbackWorks() async throws {
        try await withServer(configure: { $0.host = "::1" }) { _, port in
            let text = try await onOwnThread {
                let client = try TestClient(port: port, host: "::1")
                try client.send("GET /six HTTP/1.1\r\nHost: x\r\n\r\n")
                return try client.readResponse().text
            }
            #expect(text == "hello /six")
        }
    }

    /// Framing is decided before routing: a bad chunk line or Host is 400 and a close, and the
    /// handler never sees the request.
    @Test(arguments: [
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n",
        "GET /echo HTTP/1.1\r\nHost: user@x\r\n\r\n",
        "GET /echo HTTP/1.1\r\nHost: x y\r\n\r\n",
    ])
    func aBadChunkLineOrHostGets400AndACloseWhateverTheRoute(raw: String) async throws {
        try await withServer { _, port in
            let (status, closed) = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send(raw)
                return (try client.readResponse().status, try client.readsEOF())
            }
            #expect(status == 400)
            #expect(closed)
        }
    }

    @Test func aRefusedRequestThatPrefersTextIsToldInText() async throws {
        try await withServer { _, port in
            let response = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\n")
                return try client.readResponse()
            }
            #expect(response.status == 400)
            #expect(response.field("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.text == "400 Bad Request: A chunk size line is malformed.\n")
        }
    }

    /// The loop the kernel wakes accepts, and the connections go to the loops in turn: a
    /// burst of connections is spread evenly, not taken by whichever loop was awake.
    @Test(arguments: IOEngine.allCases)
    func connectionsAreSpreadOverTheLoopsInTurn(engine: IOEngine) async throws {
        try await withServer(engine: engine, configure: { $0.eventLoopCount = 2 }) { _, port in
            let loops = try await onOwnThread { () throws -> [String] in
                let clients = try (0..<8).map { _ in try TestClient(port: port) }
                return try clients.map { client in
                    try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    // X-Request-ID is <random>-<loop>-<serial>.
                    return String(try client.readResponse().field("X-Request-ID")?.split(separator: "-").dropFirst().first ?? "?")
                }
            }
            #expect(loops.filter { $0 == "0" }.count == 4)
            #expect(loops.filter { $0 == "1" }.count == 4)
        }
    }

    /// One listening socket, without SO_REUSEPORT: neither a second server nor any other
    /// socket can join the port and take part of its connections.
    @Test func nothingElseCanListenOnTheServersPort() async throws {
        try await withServer { _, port in
            var configuration = HTTPServerConfiguration()
            configuration.port = port
            let second = HTTPServer(configuration: configuration, handler: TestHandler())
            #expect(throws: SystemError(call: "bind", errno: EADDRINUSE)) { try second.start() }

            let intruder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(intruder) }
            var one: Int32 = 1
            setsockopt(intruder, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(intruder, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(bound == -1 && errno == EADDRINUSE)
        }
    }

    @Test(arguments: IOEngine.allCases)
    func gracefulShutdownFinishesADeferredRequestThenStops(engine: IOEngine) async throws {
        let handler = TestHandler()
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.eventLoopCount = 2
        configuration.engine = engine
        let server = HTTPServer(configuration: configuration, handler: handler)
        try server.start()
        let port = server.port
        let idle = try await onOwnThread {
            let idle = try TestClient(port: port)
            try idle.send("GET /idle HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try idle.readResponse()
            return UncheckedBox(idle)
        }
        let inFlight = Task {
            try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("GET /gate HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try client.readResponse()
                return (response.text, response.field("Connection"), try client.readsEOF())
            }
        }
        await handler.waitForGate()
        server.beginShutdown()
        let idleClosed = try await onOwnThread { try idle.value.readsEOF() }
        #expect(idleClosed)
        handler.release()
        let (text, connection, closed) = try await inFlight.value
        #expect(text == "released")
        #expect(connection == "close")
        #expect(closed)
        await server.stopped()
        let refused = try await onOwnThread { (try? TestClient(port: port)) == nil }
        #expect(refused)
    }
}

/// Moves a test client to another thread; it is used by one thread at a time.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Timeouts end to end, with a manual clock the test moves.
@Suite struct HTTPServerTimeoutTests {
    @Test(arguments: IOEngine.allCases)
    func anIdleKeptAliveConnectionIsClosedWhenTheClockPassesTheIdleTimeout(engine: IOEngine) async throws {
        let clock = ManualClock()
        try await withServer(clock: clock, engine: engine) { _, port in
            let client = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try client.readResponse()
                return UncheckedBox(client)
            }
            clock.advance(by: .seconds(59))
            clock.advance(by: .seconds(2))
            let closed = try await onOwnThread { try client.value.readsEOF() }
            #expect(closed)
        }
    }

    @Test(arguments: IOEngine.allCases)
    func aStalledBodyGets408(engine: IOEngine) async throws {
        let clock = ManualClock()
        try await withServer(clock: clock, engine: engine) { _, port in
            // The 100 Continue proves the server has read the head before the clock moves.
            let client = try await onOwnThread {
                let client = try TestClient(port: port)
                try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n")
                #expect(try client.readResponse().status == 100)
                return UncheckedBox(client)
            }
            clock.advance(by: .seconds(31))
            let (status, closed) = try await onOwnThread {
                (try client.value.readResponse().status, try client.value.readsEOF())
            }
            #expect(status == 408)
            #expect(closed)
        }
    }
}

/// `--io uring`: the loops run on io_uring where the kernel allows it, and on epoll, saying
/// why, where it refuses.
@Suite struct HTTPServerEngineTests {
    @Test func aServerAskedForIoUringRunsOnIt() async throws {
        try await withServer(engine: .uring) { server, port in
            #expect(server.engine == .uring)
            #expect(server.uringRefusal == nil)
            let status = try await onOwnThread { try TestClient(port: port).exchange(TestRequest(method: "GET", target: "/a")).status }
            #expect(status == 200)
        }
    }

    /// A ring the kernel refuses (here, one of no entries: EINVAL, as a seccomp filter gives
    /// EPERM) leaves every loop on epoll, serving.
    @Test func aRefusedRingLeavesTheServerOnEpoll() async throws {
        try await withServer(engine: .uring, configure: { $0.uringEntries = 0 }) { server, port in
            #expect(server.engine == .epoll)
            #expect(server.uringRefusal?.call == "io_uring_setup")
            let status = try await onOwnThread { try TestClient(port: port).exchange(TestRequest(method: "GET", target: "/a")).status }
            #expect(status == 200)
        }
    }
}
