import Foundation
import Testing
import TripsDomain
import TripsFormats

@testable import TripsHTTP
@testable import TripsServer

/// Rules every answer keeps, over a live socket: `X-Content-Type-Options`, the next page's
/// `Link`, and which client request ids are echoed.
@Suite struct APISmallRulesTests {
    /// Raw requests that get every kind of answer: from the API, from the connection (a
    /// request that does not parse, or is too large), and the head of a stream.
    static let everyKindOfAnswer: [(request: String, status: Int)] = [
        ("GET /trips/2 HTTP/1.1\r\nHost: localhost\r\n\r\n", 200),
        ("GET /trips/2 HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\n\r\n", 200),
        ("HEAD /trips HTTP/1.1\r\nHost: localhost\r\n\r\n", 200),
        (
            "POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 40\r\n\r\n"
                + "Oslo, Norway: 2 nights from June 1, 2027", 201
        ),
        ("OPTIONS /trips HTTP/1.1\r\nHost: localhost\r\n\r\n", 204),
        ("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", 303),
        ("GET /trips/2 HTTP/1.1\r\nHost: localhost\r\nIf-None-Match: *\r\n\r\n", 304),
        ("GET /trips?sort=name HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
        ("GET /trips HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
        ("POST /trips HTTP/1.1\r\nHost: localhost\r\nOrigin: https://attacker.example\r\nContent-Length: 0\r\n\r\n", 403),
        ("GET /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n", 404),
        ("PUT /trips HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n", 405),
        ("GET /trips HTTP/1.1\r\nHost: localhost\r\nAccept: image/png\r\n\r\n", 406),
        ("POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2000000\r\n\r\n", 413),
        ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: localhost\r\n\r\n", 414),
        ("GET /trips HTTP/1.1\r\nHost: attacker.example\r\n\r\n", 421),
        ("GET /trips/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n", 200),
        ("BREW /trips HTTP/1.1\r\nHost: localhost\r\n\r\n", 501),
    ]

    @Test func everyAnswerSaysNoSniffWhateverItsStatusOrRoute() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let port = api.port
        let heads = try await onOwnThread {
            try Self.everyKindOfAnswer.map { exchange in
                let client = try TestClient(port: port)
                try client.send(exchange.request)
                return try client.readUntil("\r\n\r\n")
            }
        }
        for (head, exchange) in zip(heads, Self.everyKindOfAnswer) {
            #expect(head.hasPrefix("HTTP/1.1 \(exchange.status) "), "\(exchange.request.prefix(40)): \(head)")
            #expect(head.contains("\r\nX-Content-Type-Options: nosniff\r\n"), "\(exchange.request.prefix(40)): \(head)")
            #expect(head.components(separatedBy: "X-Content-Type-Options").count == 2, "said once: \(head)")
        }
    }

    @Test func theNextPagesLinkIsPercentEncodedAndLeadsToTheNextPage() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        for city in ["Bergen", "Tromsø", "Ålesund"] {
            let draft = #"{"city":"\#(city)","country":"Norway","nights":2,"price":1,"start":"2027-06-01","notes":"fjord > city"}"#
            #expect(try await api.json("POST", "/trips", draft).status == 201)
        }
        // A `>` sent raw (it ended the field), and an escape, kept as it was sent.
        let page = try await api.request("GET", "/trips?limit=2&q=>&country=%4Eorway")
        #expect(page.status == 200)
        let next = try #require(page.link("next"))
        #expect(next == "/trips?limit=2&q=%3E&country=%4Eorway&after=8")
        #expect(page.link("first") == "/trips?limit=2&q=%3E&country=%4Eorway")
        let rest = try await api.request("GET", next)
        #expect(rest.status == 200)
        #expect(rest.link("next") == nil && rest.link("first") == "/trips?limit=2&q=%3E&country=%4Eorway")
        guard case .array(let trips)? = try? rest.json else { throw TestFailure("not a list: \(rest.text)") }
        #expect(trips.count == 1)
    }

    /// `"`, `<` and `>` are encoded; well-formed escapes are kept, a lone `%` is not one.
    @Test func aQueryIsEncodedAsAURIHoldsIt() {
        #expect(HTTPRequest.uriEncodedQuery(#"a="b"&c=<d>&e=%zz&f=%41%"#) == "a=%22b%22&c=%3Cd%3E&e=%25zz&f=%41%25")
        #expect(HTTPRequest.uriEncodedQuery("q=new+york&x=a:b@c/d?e;f,g!h") == "q=new+york&x=a:b@c/d?e;f,g!h")
        #expect(HTTPRequest.uriEncodedQuery("q=[x]{y}|z^`\\") == "q=%5Bx%5D%7By%7D%7Cz%5E%60%5C")
    }

    @Test func aClientRequestIDIsEchoedOnlyWhenShortAndPlain() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        for (id, isKept) in [
            ("trace-42_A.b", true), (String(repeating: "a", count: 64), true), ("550e8400-e29b-41d4-a716-446655440000", true),
            (String(repeating: "a", count: 65), false), ("a:b", false), ("a/b", false), ("a+b=", false), ("<script>", false),
            ("a b", false),
        ] {
            let answer = try await api.request("GET", "/trips/2", headers: ["X-Request-ID": id])
            let echoed = try #require(answer.field("X-Request-ID"))
            #expect((echoed == id) == isKept, "\(id): \(echoed)")
            #expect(!echoed.isEmpty)
        }
    }
}
