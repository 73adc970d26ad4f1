import Foundation
import Testing
import TripsDomain
import TripsFormats
@testable import TripsHTTP
@testable import TripsServer

/// Typed problems: every refusal names its kind as `/problems/<kind>` and its request as
/// `instance`, and every kind is described at its URI and listed in openapi.yaml.
@Suite struct APIProblemTypeTests {
    /// Raw requests refused by the API and by the connection, each with the kind it is.
    static let refusals: [(request: String, status: Int, kind: ProblemType)] = [
        ("GET /trips?sort=name HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, .malformedRequest),
        ("GET /trips HTTP/1.1\r\nHost: a b\r\n\r\n", 400, .malformedRequest),
        (
            "POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n{", 400,
            .malformedContent
        ),
        (
            "POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"nights\":0}",
            422, .invalidDraft
        ),
        ("DELETE /trips?ids=2,999 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n", 422, .unknownIDs),
        ("POST /trips HTTP/1.1\r\nHost: localhost\r\nOrigin: https://attacker.example\r\nContent-Length: 0\r\n\r\n", 403, .forbidden),
        ("GET /trips/999 HTTP/1.1\r\nHost: localhost\r\n\r\n", 404, .notFound),
        ("GET /problems/no-such-kind HTTP/1.1\r\nHost: localhost\r\n\r\n", 404, .notFound),
        ("PUT /trips HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n", 405, .methodNotAllowed),
        ("GET /trips HTTP/1.1\r\nHost: localhost\r\nAccept: image/png\r\n\r\n", 406, .notAcceptable),
        (
            "DELETE /trips/2 HTTP/1.1\r\nHost: localhost\r\nIf-Match: \"stale\"\r\nContent-Length: 0\r\n\r\n", 412,
            .staleIfMatch
        ),
        ("POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2000000\r\n\r\n", 413, .tooLarge),
        ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: localhost\r\n\r\n", 414, .tooLarge),
        ("POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/csv\r\nContent-Length: 1\r\n\r\na", 415, .unsupportedMediaType),
        ("GET /trips HTTP/1.1\r\nHost: attacker.example\r\n\r\n", 421, .misdirected),
        ("GET /trips/changes?since=999 HTTP/1.1\r\nHost: localhost\r\n\r\n", 410, .changesExpired),
        ("BREW /trips HTTP/1.1\r\nHost: localhost\r\n\r\n", 501, .notImplemented),
    ]

    /// Over a socket, each refusal's document names its kind, and its `instance` is the
    /// request's `X-Request-ID`: the client's own, or the one the server made up.
    @Test func everyRefusalNamesItsKindAndItsRequest() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let port = api.port
        let answers = try await onOwnThread {
            try Self.refusals.map { refusal in
                let client = try TestClient(port: port)
                try client.send(refusal.request)
                return try client.readResponse()
            }
        }
        for (answer, refusal) in zip(answers, Self.refusals) {
            let label = String(refusal.request.prefix(50))
            #expect(answer.status == refusal.status, "\(label): \(answer.text)")
            #expect(try answer.member("type") == .string(refusal.kind.uri), "\(label): \(answer.text)")
            let id = try #require(answer.field("X-Request-ID"), "\(label)")
            #expect(try answer.member("instance") == .string(id), "\(label): \(answer.text)")
        }
    }

    @Test func aClientsRequestIDIsTheInstance() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let answer = try await api.request("GET", "/trips/999", headers: ["X-Request-ID": "report-42"])
        #expect(answer.status == 404)
        #expect(try answer.member("instance") == .string("report-42"))
        #expect(try answer.member("title") == .string("Not Found"))
    }

    /// A change refused after the store was asked (a deferred answer) names its request too.
    @Test func aDeferredRefusalNamesItsRequest() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let answer = try await api.json("PATCH", "/trips/2", #"{"nights":0}"#, headers: ["X-Request-ID": "patch-7"])
        #expect(answer.status == 422)
        #expect(try answer.member("type") == .string(ProblemType.invalidDraft.uri))
        #expect(try answer.member("instance") == .string("patch-7"))
    }

    @Test func eachKindIsDescribedAtItsURI() async throws {
        let api = try await APIServer()
        for kind in ProblemType.all {
            let json = try await api.request("GET", kind.uri)
            #expect(json.status == 200, "\(kind.uri)")
            #expect(try json.member("type") == .string(kind.uri))
            #expect(try json.member("summary") == .string(kind.summary))
            let text = try await api.request("GET", kind.uri, headers: ["Accept": "text/plain"])
            #expect(text.text == "\(kind.uri): \(kind.summary)\n")
        }
        #expect(try await api.request("GET", "/problems/").status == 404)
        #expect(try await api.request("GET", "/problems/stale-if-match/x").status == 404)
    }

    @Test func everyKindHasAUniqueURIAndADescription() {
        let all = ProblemType.all
        #expect(Set(all.map(\.uri)).count == all.count)
        for kind in all {
            #expect(kind.uri == "/problems/\(kind.name)")
            #expect(!kind.name.isEmpty && kind.name.allSatisfy { $0 == "-" || ("a"..."z").contains($0) }, "\(kind.name)")
            #expect(kind.summary.count > 20, "\(kind.name)")
        }
    }

    /// No status, and no refusal of the HTTP layer, names a kind the catalog lacks.
    @Test func everyKindThrownIsInTheCatalog() {
        let all = Set(ProblemType.all)
        for code in 400..<600 {
            let kind = ProblemType.usual(for: HTTPStatus(code: code, reasonPhrase: ""))
            #expect(all.contains(kind), "\(code): \(kind.name)")
        }
        for error in HTTPParseError.allCases {
            #expect(all.contains(error.type), "\(error)")
        }
        #expect(all.contains(.requestTimeout) && all.contains(.internalError))
    }

    /// openapi.yaml's `Problem.type` enumerates every kind's URI, and `/problems/{kind}`'s
    /// parameter every name.
    @Test func theSpecListsEveryKind() throws {
        let spec = String(decoding: OpenAPISpec.document, as: UTF8.self)
        let lines = spec.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let listed = Set(lines.filter { $0.hasPrefix("- /problems/") }.map { String($0.dropFirst(2)) })
        #expect(listed == Set(ProblemType.all.map(\.uri)))
        let parameter = try #require(
            spec.range(of: "  /problems/{kind}:").flatMap { start in spec[start.upperBound...].range(of: "enum: [") })
        let names = spec[parameter.upperBound...].prefix { $0 != "]" }.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(Set(names) == Set(ProblemType.all.map(\.name)))
        #expect(names.count == ProblemType.all.count)
    }
}
