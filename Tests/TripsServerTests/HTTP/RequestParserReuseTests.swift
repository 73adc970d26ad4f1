import Testing

@testable import TripsHTTP

/// A keep-alive connection's parser makes each request in the box and field room of the one
/// before, once nothing else holds it; a request something still holds is never written over.
@Suite struct RequestParserReuseTests {
    private static func request(_ parser: inout RequestParser, _ text: String) throws -> HTTPRequest {
        let bytes = Array(text.utf8)
        let step = bytes.withUnsafeBytes { parser.parse($0) }
        guard case .request(let request) = step.event, step.consumed == bytes.count else {
            throw TestFailure("not one whole request: \(step)")
        }
        return request
    }

    private static let first = "GET /trips/1?limit=2 HTTP/1.1\r\nHost: a.example\r\nAccept: text/plain\r\nX-First: 1\r\n\r\n"
    private static let second = "HEAD /trips/2 HTTP/1.1\r\nHost: b.example\r\n\r\n"

    @Test func aRequestStillHeldIsNotWrittenOver() throws {
        var parser = RequestParser()
        let held = try Self.request(&parser, Self.first)
        let next = try Self.request(&parser, Self.second)
        #expect(ObjectIdentifier(next.box) != ObjectIdentifier(held.box), "both alive: their boxes are two")
        #expect(held.method == .get && held.path == "/trips/1" && held.query == "limit=2")
        #expect(held.headerFields[.host] == "a.example" && held.headerFields[.accept] == "text/plain")
        #expect(held.headerFields.count == 3)
        #expect(next.method == .head && next.path == "/trips/2" && next.query == nil)
        #expect(Array(next.headerFields) == [HTTPField(name: .host, value: "b.example")])
    }

    @Test func aRequestNoLongerHeldLeavesNothingOfItselfInTheNext() throws {
        var parser = RequestParser()
        weak var firstBox: AnyObject?
        do {
            let first = try Self.request(&parser, Self.first)
            #expect(first.headerFields.count == 3)
            firstBox = first.box
        }  // the first request is dropped here, before the second is made
        let kept = firstBox != nil
        #expect(kept, "kept by the parser")
        let request = try Self.request(&parser, Self.second)
        let sameBox = request.box === firstBox
        #expect(sameBox, "made in the first one's box")
        #expect(request.method == .head && request.target == "/trips/2" && request.query == nil)
        #expect(Array(request.headerFields) == [HTTPField(name: .host, value: "b.example")])
        #expect(!request.headerFields.contains(.accept))
        _ = consume request
        let third = try Self.request(&parser, "POST /trips HTTP/1.1\r\nHost: c.example\r\nContent-Length: 2\r\n\r\n{}")
        #expect(third.body == Array("{}".utf8) && third.headerFields[.contentLength] == "2")
    }

    /// An idle connection holds what its spare holds: never content, nor a large head.
    @Test(arguments: [
        "POST /trips HTTP/1.1\r\nHost: a.example\r\nContent-Length: 2\r\n\r\n{}",
        "GET /trips HTTP/1.1\r\nHost: a.example\r\nX-Large: \(String(repeating: "x", count: RequestParser.maxSpareSectionLength))\r\n\r\n",
    ])
    func aRequestWithContentOrALargeHeadIsNotKept(first: String) throws {
        var parser = RequestParser()
        weak var firstBox: AnyObject?
        firstBox = try Self.request(&parser, first).box  // the request is dropped at once
        let dropped = firstBox == nil
        #expect(dropped, "not kept")
        let second = try Self.request(&parser, Self.second)
        #expect(Array(second.headerFields) == [HTTPField(name: .host, value: "b.example")])
    }
}
