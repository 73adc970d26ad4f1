import Foundation
import Glibc
import Synchronization

@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsServer

/// Runs blocking socket work on a thread of its own, never on Swift's shared pool.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A response as the test client read it.
struct TestResponse: Sendable {
    var status: Int
    var reason: String
    var fields: [(name: String, value: String)]
    var body: [UInt8]

    func field(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The first whole response in `bytes` and how many bytes it took; nil while incomplete.
    /// `head` says the request was HEAD (no content follows).
    static func parse(_ bytes: [UInt8], head: Bool = false) throws -> (TestResponse, Int)? {
        guard let end = TestClient.find([13, 10, 13, 10], in: bytes) else { return nil }
        var lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestFailure("bad status line") }
        let fields = lines.map { line -> (name: String, value: String) in
            let parts = line.split(separator: ":", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        var response = TestResponse(status: status, reason: statusLine.count > 2 ? statusLine[2] : "", fields: fields, body: [])
        let length =
            head || status < 200 || status == 204 || status == 304
            ? 0 : Int(response.field("Content-Length") ?? "0") ?? 0
        guard bytes.count >= end + 4 + length else { return nil }
        response.body = Array(bytes[(end + 4)..<(end + 4 + length)])
        return (response, end + 4 + length)
    }
}

/// A request as every test writes it: over a socket (`bytes`) or handed to a handler in
/// memory (`parsed`, read by the server's own parser). The one request builder of the tests.
struct TestRequest: Sendable {
    var method: String
    var target: String
    var headers: [String: String] = [:]
    var body: String?
    /// Adds `Connection: close`, for one request per connection.
    var closes = false
    /// A body that is not text (a photo); sent instead of `body`.
    var binaryBody: [UInt8]?

    /// The request on the wire: `Host` (`localhost` unless `headers` names another), the other
    /// headers in name order, and `Content-Length` with a body.
    var bytes: [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(headers["Host"] ?? "localhost")\r\n"
        if closes { head += "Connection: close\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) where name != "Host" { head += "\(name): \(value)\r\n" }
        let content = binaryBody ?? Array((body ?? "").utf8)
        if body != nil || binaryBody != nil { head += "Content-Length: \(content.count)\r\n" }
        return Array((head + "\r\n").utf8) + content
    }

    /// The request as the server's parser reads it from `bytes`.
    var parsed: HTTPRequest {
        get throws {
            let events = parseEvents([bytes])
            guard case .request(let request)? = events.first else { throw TestFailure("unparsable: \(events)") }
            return request
        }
    }
}

/// A small blocking HTTP client over a Glibc socket, with a receive timeout so no test hangs.
final class TestClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    /// `receiveBuffer` shrinks the socket's receive buffer (a client that reads slowly).
    init(port: Int, host: String = "127.0.0.1", timeoutSeconds: Int = 5 * TestTimeout.scale, receiveBuffer: Int32? = nil) throws {
        // getaddrinfo fills the right sockaddr for IPv4 and IPv6 alike.
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let info = results else {
            throw TestFailure("not a numeric address: \(host)")
        }
        defer { freeaddrinfo(results) }
        descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard descriptor >= 0 else { throw TestFailure("socket failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        // No close on failure: the object is fully initialised, so `deinit` runs and closes it.
        guard connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            throw TestFailure("connect failed: errno \(errno)")
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw TestFailure("send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes; false on EOF or reset, throws on timeout.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var count: Int
        // With a receive timeout set, a signal fails the call with EINTR instead of restarting it.
        repeat {
            count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        } while count < 0 && errno == EINTR
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 || errno == ECONNRESET { return false }
        throw TestFailure("recv failed (timeout?): errno \(errno)")
    }

    /// Sends `request` on this connection and reads the answer.
    func exchange(_ request: TestRequest) throws -> TestResponse {
        try send(request.bytes)
        return try readResponse(head: request.method == "HEAD")
    }

    /// Reads one response; `head` says the request was HEAD (no content follows).
    func readResponse(head: Bool = false) throws -> TestResponse {
        while true {
            if let (response, length) = try TestResponse.parse(buffer, head: head) {
                buffer.removeFirst(length)
                return response
            }
            guard try fill() else { throw TestFailure("closed before a whole response: \(String(decoding: buffer, as: UTF8.self))") }
        }
    }

    /// Reads raw bytes until `marker` has arrived and returns everything up to and including
    /// it (a stream's chunks arrive as they are written); throws on EOF or timeout first.
    func readUntil(_ marker: String) throws -> String {
        let needle = Array(marker.utf8)
        var searched = 0  // what was searched already, less a partial marker at its end
        while true {
            if let found = Self.find(needle, in: buffer, from: searched) {
                let text = String(decoding: buffer[..<(found + needle.count)], as: UTF8.self)
                buffer.removeFirst(found + needle.count)
                return text
            }
            searched = max(0, buffer.count - needle.count + 1)
            guard try fill() else {
                throw TestFailure("closed before \(marker.debugDescription): \(String(decoding: buffer.suffix(200), as: UTF8.self))")
            }
        }
    }

    /// Reads until the server closes the connection; returns whatever came before.
    func readToEnd() throws -> String {
        while try fill() {}
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// True when the server has sent bytes not read yet: looked at, never waited for.
    func hasBytesWaiting() -> Bool {
        if !buffer.isEmpty { return true }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// True if the server closes the connection (EOF or reset) with nothing more sent.
    func readsEOF() throws -> Bool {
        if !buffer.isEmpty { return false }
        return try !fill()
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}

/// The handler the HTTP tests plug in:
/// `/echo` returns the body, `/defer` answers from another thread, `/gate` waits for `release`,
/// `/big` answers 16 KiB and counts how often it was asked, anything else answers `hello <path>`.
final class TestHandler: HTTPHandler {
    private let gate = Mutex<(waiting: [HTTPResponder], arrived: [CheckedContinuation<Void, Never>])>(([], []))
    /// How many `/big` requests were answered.
    let bigAnswers = Atomic(0)

    func handle(_ request: HTTPRequest, context: inout RequestContext) -> HTTPReply {
        switch request.path {
        case "/echo":
            return .now(HTTPResponse(status: .ok, headerFields: [.contentType: "application/octet-stream"], body: request.body))
        case "/defer":
            let body = Array("deferred \(request.query ?? "")".utf8)
            return .later { responder in
                DispatchQueue.global().async { responder.respond(HTTPResponse(status: .ok, body: body)) }
            }
        case "/gate":
            return .later { responder in
                let arrived = self.gate.withLock { state in
                    state.waiting.append(responder)
                    defer { state.arrived = [] }
                    return state.arrived
                }
                for continuation in arrived { continuation.resume() }
            }
        case "/nocontent":
            return .now(HTTPResponse(status: .noContent))
        case "/big":
            bigAnswers.add(1, ordering: .relaxed)
            return .now(HTTPResponse(status: .ok, body: Array(repeating: UInt8(ascii: "b"), count: 16 * 1024)))
        default:
            return .now(HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"], body: Array("hello \(request.path)".utf8)))
        }
    }

    /// Returns once a request waits at the gate.
    func waitForGate() async {
        await withCheckedContinuation { continuation in
            let ready = gate.withLock { state in
                if state.waiting.isEmpty { state.arrived.append(continuation) }
                return !state.waiting.isEmpty
            }
            if ready { continuation.resume() }
        }
    }

    /// Answers every request waiting at the gate.
    func release() {
        let waiting = gate.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        for responder in waiting { responder.respond(HTTPResponse(status: .ok, body: Array("released".utf8))) }
    }
}

extension IOEngine {
    /// The engine the tests' servers run on unless a test names one: `TRIPS_TEST_IO=uring`
    /// runs the whole suite on io_uring (`.ci/run` does, after the run on epoll).
    static let underTest = ProcessInfo.processInfo.environment["TRIPS_TEST_IO"].flatMap(IOEngine.init) ?? .epoll
}

extension AsyncLimit {
    /// How many live servers (`withServer`, `APIServer` in `.live` mode) may run at once in
    /// the whole test run. Swift Testing starts every test case at once when they await, so
    /// without it a parameterized test starts a server per case all together: 140 of them
    /// on two cores under ThreadSanitizer left answers waiting past the clients' timeout.
    static let liveServers = AsyncLimit(4 * ProcessInfo.processInfo.activeProcessorCount)
}

/// Starts a server on an ephemeral port for one test, once `AsyncLimit.liveServers` lets it,
/// and shuts it down after.
func withServer<T: Sendable>(
    handler: TestHandler = TestHandler(), clock: any ServerClock = SystemClock(), engine: IOEngine = .underTest,
    configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    _ body: (HTTPServer, Int) async throws -> T
) async throws -> T {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configuration.eventLoopCount = 2
    configuration.engine = engine
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, handler: handler, clock: clock)
    await AsyncLimit.liveServers.take()
    defer { AsyncLimit.liveServers.giveBack() }  // after the shutdown: the loops have stopped
    try server.start()
    do {
        let result = try await body(server, server.port)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}
