import Foundation
import Synchronization
import Testing

@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsServer

/// Collects deferred responses as an event loop's mailbox would.
final class RecordingSink: HTTPResponseSink {
    let delivered = Mutex<[(ConnectionID, HTTPResponse)]>([])
    func deliver(_ response: HTTPResponse, to connection: ConnectionID) {
        delivered.withLock { $0.append((connection, response)) }
    }
}

/// Answers `/later` with `.later`, keeping the responder; everything else with `ok <path>`.
/// Refuses `/guarded` without `Authorization` from its head alone, with 401.
final class InMemoryHandler: HTTPHandler {
    let responders = Mutex<[HTTPResponder]>([])
    func handle(_ request: HTTPRequest, context: inout RequestContext) -> HTTPReply {
        if request.path == "/later" {
            return .later { responder in self.responders.withLock { $0.append(responder) } }
        }
        if request.path == "/empty" { return .now(HTTPResponse(status: .noContent)) }
        return .now(HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"], body: Array("ok \(request.path)".utf8)))
    }

    func refusal(beforeContent head: HTTPRequest, context: inout RequestContext) -> HTTPResponse? {
        guard head.path == "/guarded", head.headerFields[.authorization] == nil else { return nil }
        return HTTPResponse(status: .unauthorized)
    }
}

/// A connection with no socket, a fixed Date, and time as a plain value.
struct ConnectionHarness {
    let handler = InMemoryHandler()
    let sink = RecordingSink()
    let connection: HTTPConnection
    let start = MonotonicInstant(nanoseconds: 1_000_000_000)
    let timeouts: HTTPServerConfiguration.Timeouts

    init(configure: (inout HTTPServerConfiguration) -> Void = { _ in }) {
        var configuration = HTTPServerConfiguration()
        configure(&configuration)
        timeouts = configuration.timeouts
        let environment = ConnectionEnvironment(
            handler: handler, configuration: configuration, sink: sink,
            dates: DateCache(epochSeconds: 784_111_777))
        connection = HTTPConnection(id: ConnectionID(descriptor: 7, serial: 1), environment: environment, now: start)
    }

    func at(_ seconds: Double) -> MonotonicInstant { start + .milliseconds(Int(seconds * 1000)) }

    /// Feeds text and returns what the connection wrote.
    func feed(_ text: String, at seconds: Double = 0) -> String {
        var output: [UInt8] = []
        Array(text.utf8).withUnsafeBytes { connection.receive($0, now: at(seconds), output: &output) }
        return String(decoding: output, as: UTF8.self)
    }

    /// What the connection writes for the requests it held back, as the loop asks it once the
    /// client has read everything sent so far.
    func resume(at seconds: Double = 0) -> String {
        var output: [UInt8] = []
        connection.resume(now: at(seconds), output: &output)
        return String(decoding: output, as: UTF8.self)
    }

    func expire(at seconds: Double) -> String {
        var output: [UInt8] = []
        connection.expire(now: at(seconds), output: &output)
        return String(decoding: output, as: UTF8.self)
    }
}

@Suite struct HTTPConnectionTests {
    let date = "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nServer: trips\r\nX-Content-Type-Options: nosniff\r\n"

    @Test func aResponseIsSerializedWithDateServerAndLength() {
        let harness = ConnectionHarness()
        let written = harness.feed("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(written == "HTTP/1.1 200 OK\r\n\(date)Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nok /a")
        #expect(harness.connection.state == .open)
    }

    @Test func headGetsTheGetFieldsWithoutContent() {
        let harness = ConnectionHarness()
        let written = harness.feed("HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(written == "HTTP/1.1 200 OK\r\n\(date)Content-Type: text/plain\r\nContent-Length: 5\r\n\r\n")
    }

    @Test func noContentHasNoContentLength() {
        let harness = ConnectionHarness()
        #expect(harness.feed("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 204 No Content\r\n\(date)\r\n")
    }

    @Test func http10KeepAliveIsAnnouncedAndDefaultCloses() {
        let keep = ConnectionHarness()
        #expect(keep.feed("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").contains("Connection: keep-alive\r\n"))
        #expect(keep.connection.state == .open)
        let close = ConnectionHarness()
        #expect(close.feed("GET /a HTTP/1.0\r\n\r\n").contains("Connection: close\r\n"))
        #expect(close.connection.state == .closing)
    }

    @Test func pipelinedRequestsAreAnsweredInOrderInOneBuffer() {
        let harness = ConnectionHarness()
        let written = harness.feed("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = written.range(of: "ok /1")
        let second = written.range(of: "ok /2")
        #expect(first != nil && second != nil && first!.lowerBound < second!.lowerBound)
    }

    @Test func aParseErrorWritesAProblemAndCloses() {
        let harness = ConnectionHarness()
        let written = harness.feed("GET / HTTP/2.0\r\nHost: x\r\n\r\n")
        #expect(written.hasPrefix("HTTP/1.1 505 HTTP Version Not Supported\r\n"))
        #expect(written.contains("Content-Type: application/problem+json\r\nContent-Length: "))
        #expect(written.contains("Connection: close\r\n\r\n"))
        #expect(
            written.hasSuffix(
                "{\"type\":\"/problems/not-implemented\",\"title\":\"HTTP Version Not Supported\",\"status\":505,\"detail\":\"Only HTTP/1.0 and HTTP/1.1 are supported.\"}"
            ))
        #expect(harness.connection.state == .closing)
    }

    @Test func continueIsWrittenBeforeTheContentIsRead() {
        let harness = ConnectionHarness()
        let interim = harness.feed("POST /c HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(harness.feed("hi").hasPrefix("HTTP/1.1 200 OK"))
    }

    @Test func aRefusalFromTheHeadIsTheAnswerInsteadOf100Continue() {
        let refused = ConnectionHarness()
        let written = refused.feed("POST /guarded HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        #expect(written.hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
        #expect(!written.contains("100 Continue"))
        #expect(written.contains("Connection: close\r\n"))
        #expect(refused.connection.state == .closing)
        let admitted = ConnectionHarness()
        let interim = admitted.feed(
            "POST /guarded HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(admitted.feed("hi").hasPrefix("HTTP/1.1 200 OK"))
    }

    /// 1,000 pipelined requests in one read, answers never read: answering stops once more than
    /// 64 KiB are unsent (the rest wait unparsed, and the socket is not read), and goes on as
    /// the client takes them.
    @Test func pipelinedRequestsWaitWhileTheClientLeavesMoreThan64KiBOfAnswersUnread() {
        let harness = ConnectionHarness()
        let request = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
        let answerLength = harness.feed(request).utf8.count
        let backlog = HTTPServerConfiguration.Limits().maxAnswerBacklog
        #expect(backlog == 64 * 1024)
        let perTurn = backlog / answerLength + 1  // the first that passes the backlog is still written
        let count = 1_000
        var answered = 0
        var written = harness.feed(String(repeating: request, count: count))
        while !written.isEmpty {
            let answers = written.components(separatedBy: "HTTP/1.1 200 OK").count - 1
            answered += answers
            #expect(answers == min(perTurn, count - answered + answers))
            #expect(written.utf8.count <= backlog + answerLength)
            // The socket took none of it: nothing more is parsed, nor read.
            harness.connection.pendingOutput = Array(written.utf8)
            #expect(!harness.connection.isReadable)
            #expect(!harness.connection.canResume)
            #expect(harness.resume().isEmpty)
            // The client read it all.
            harness.connection.pendingOutput = []
            written = harness.resume()
        }
        #expect(answered == count)
        #expect(harness.connection.isReadable && harness.connection.isIdle)
    }

    @Test func aDeferredResponseHoldsBackPipelinedRequestsUntilItArrives() throws {
        let harness = ConnectionHarness()
        let first = harness.feed("GET /later HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(first.isEmpty)
        #expect(harness.connection.state == .awaitingResponse)
        #expect(!harness.connection.isReadable)
        let responder = try #require(harness.handler.responders.withLock { $0.first })
        responder.respond(HTTPResponse(status: .created))
        let (id, response) = try #require(harness.sink.delivered.withLock { $0.first })
        #expect(id == harness.connection.id)
        var output: [UInt8] = []
        harness.connection.complete(response, now: harness.at(1), output: &output)
        let written = String(decoding: output, as: UTF8.self)
        #expect(written.hasPrefix("HTTP/1.1 201 Created\r\n"))
        #expect(written.hasSuffix("ok /after"))
        #expect(harness.connection.state == .open)
    }

    @Test func aDroppedResponderAnswers500() throws {
        let sink = RecordingSink()
        do { _ = HTTPResponder(sink: sink, connection: ConnectionID(descriptor: 1, serial: 1)) }
        let response = try #require(sink.delivered.withLock { $0.first?.1 })
        #expect(response.status == .internalServerError)
    }

    @Test func theHandlersConnectionCloseClosesAndOwnedFieldsAreNotDuplicated() {
        var output: [UInt8] = []
        let response = HTTPResponse(
            status: .ok,
            headerFields: [.connection: "close", .contentLength: "99", "X-Content-Type-Options": "sniff", "X-A": "a\r\nInjected: 1"],
            body: [1])
        response.serialize(
            into: &output, omitContent: false, connection: .none, dates: DateCache(epochSeconds: 784_111_777))
        #expect(response.asksToClose)
        #expect(
            String(decoding: output, as: UTF8.self) == "HTTP/1.1 200 OK\r\n\(date)X-A: a  Injected: 1\r\nContent-Length: 1\r\n\r\n\u{1}")
    }

    // MARK: - Timeouts, with time as a value

    @Test func anIncompleteHeaderSectionTimesOutWith408() {
        let harness = ConnectionHarness()
        _ = harness.feed("GET / HTTP/1.1\r\nHost: x\r\n", at: 2)
        #expect(harness.connection.deadline() == harness.at(2) + harness.timeouts.header)
        #expect(harness.expire(at: 11.9).isEmpty)
        let written = harness.expire(at: 12)
        #expect(written.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(written.contains("Connection: close\r\n"))
        #expect(harness.connection.state == .closing)
    }

    @Test func aSilentNewConnectionIsClosedWithoutAResponse() {
        let harness = ConnectionHarness()
        #expect(harness.connection.deadline() == harness.start + harness.timeouts.header)
        #expect(harness.expire(at: 10).isEmpty)
        #expect(harness.connection.state == .closed)
    }

    @Test func anIdleKeptAliveConnectionIsClosedSilently() {
        let harness = ConnectionHarness()
        _ = harness.feed("GET / HTTP/1.1\r\nHost: x\r\n\r\n", at: 5)
        #expect(harness.connection.deadline() == harness.at(5) + harness.timeouts.idle)
        #expect(harness.expire(at: 64).isEmpty)
        #expect(harness.connection.state == .open)
        #expect(harness.expire(at: 65).isEmpty)
        #expect(harness.connection.state == .closed)
    }

    @Test func aStalledBodyTimesOutWith408AndProgressPostponesIt() {
        let harness = ConnectionHarness { $0.timeouts.minimumBodyRate = 0 }  // the stall alone
        _ = harness.feed("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc", at: 1)
        #expect(harness.connection.deadline() == harness.at(1) + harness.timeouts.bodyStall)
        _ = harness.feed("de", at: 20)
        #expect(harness.connection.deadline() == harness.at(20) + harness.timeouts.bodyStall)
        #expect(harness.expire(at: 49).isEmpty)
        #expect(harness.expire(at: 50).hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
    }

    /// A byte every few seconds never stalls, but after the 10 s grace the content must have
    /// averaged 1 KiB a second since the header section, or 408.
    @Test func aBodyTricklingUnderTheMinimumRateGets408AfterTheGracePeriod() {
        let harness = ConnectionHarness()
        #expect(harness.timeouts.bodyGrace == .seconds(10) && harness.timeouts.minimumBodyRate == 1024)
        _ = harness.feed("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\na", at: 1)
        #expect(harness.connection.deadline() == harness.at(11))
        _ = harness.feed("b", at: 9)
        #expect(harness.expire(at: 10.9).isEmpty)
        let written = harness.expire(at: 11)
        #expect(written.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(written.contains("too slowly"))
        #expect(harness.connection.state == .closing)
    }

    /// Content at the minimum rate or faster is never cut: each KiB buys a second past the grace.
    @Test func aBodyAtTheMinimumRateIsRead() {
        let harness = ConnectionHarness()
        _ = harness.feed("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 30720\r\n\r\n", at: 0)
        for second in 0..<29 {
            _ = harness.feed(String(repeating: "a", count: 1024), at: Double(second))
            #expect(harness.expire(at: Double(second) + 0.999).isEmpty)
        }
        #expect(harness.connection.deadline() == harness.at(29))
        #expect(harness.feed(String(repeating: "a", count: 1024), at: 28.5).hasPrefix("HTTP/1.1 200 OK"))
    }

    @Test func aDeferredRequestHasNoDeadline() {
        let harness = ConnectionHarness()
        _ = harness.feed("GET /later HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(harness.connection.deadline() == nil)
    }

    @Test func closeIfIdleSparesARequestInProgress() {
        let busy = ConnectionHarness()
        _ = busy.feed("GET / HTTP/1.1\r\n")
        busy.connection.closeIfIdle()
        #expect(busy.connection.state == .open)
        let idle = ConnectionHarness()
        _ = idle.feed("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        idle.connection.closeIfIdle()
        #expect(idle.connection.state == .closed)
    }
}

@Suite struct HTTPValueTests {
    @Test(arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"), (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (1_798_761_599, "Thu, 31 Dec 2026 23:59:59 GMT"),
    ])
    func datesAreIMFFixdate(seconds: Int, expected: String) {
        #expect(HTTPDate.format(epochSeconds: seconds) == expected)
    }

    @Test func fieldNamesCompareCaseInsensitivelyAndKeepTheirSpelling() {
        var fields: HTTPFields = ["Content-TYPE": "a"]
        fields.append(.vary, "Accept")
        fields.append("vary", "Origin")
        #expect(fields[.contentType] == "a")
        #expect(fields.values(for: .vary) == ["Accept", "Origin"])
        #expect(fields.contains("VARY"))
        fields[.vary] = "X"
        #expect(fields.values(for: .vary) == ["X"])
        fields[.vary] = nil
        #expect(!fields.contains(.vary))
        #expect(fields.first?.name.rawName == "Content-TYPE")
        let badName = "bad name"
        #expect(HTTPField.Name(badName) == nil)
        #expect(HTTPMethod("GET") == .get)
        #expect(HTTPMethod("QUERY") == .query)
        for other in ["G T", "get", "FETCH", ""] { #expect(HTTPMethod(other) == nil) }
        let names = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "QUERY"]
        #expect(HTTPMethod.known.map(\.rawValue) == names)
        #expect(HTTPMethod.known.map { HTTPMethod($0.rawValue) } == HTTPMethod.known)
    }

    @Test func queryItemsArePercentDecoded() {
        let request = HTTPRequest(method: .get, target: "/t?q=new+york&tag=a%26b&flag&bad=%zz&&e=")
        #expect(request.path == "/t")
        #expect(
            request.queryItems == [
                HTTPQueryItem(name: "q", value: "new york"), HTTPQueryItem(name: "tag", value: "a&b"),
                HTTPQueryItem(name: "flag", value: ""), HTTPQueryItem(name: "bad", value: "%zz"),
                HTTPQueryItem(name: "e", value: ""),
            ])
    }

    @Test func problemBodiesEscapeJSON() {
        let response = ProblemDetails(.badRequest, "a \"quoted\"\n\u{1} word", type: .malformedRequest).response()
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == "{\"type\":\"/problems/malformed-request\",\"title\":\"Bad Request\",\"status\":400,\"detail\":\"a \\\"quoted\\\"\\n\\u0001 word\"}"
        )
    }

    /// Errors the HTTP layer answers itself follow `Accept` like the API's do.
    @Test func aParseErrorSpeaksTextWhenTheRequestPrefersIt() {
        let response = HTTPParseError.invalidChunkSize.response(accept: ["text/plain"])
        #expect(response.headerFields[.contentType] == "text/plain; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self) == "400 Bad Request: A chunk size line is malformed.\n")
    }
}
