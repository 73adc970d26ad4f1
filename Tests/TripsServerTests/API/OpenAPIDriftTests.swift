import Foundation
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

/// The statuses and header fields the server answers, operation by operation, against what
/// openapi.yaml lists for them: every exchange below gets the status it names, and the spec
/// must list that status for the operation (a generated client treats an unlisted one as an
/// error of the spec), with every header field the answer carries.
/// Statuses only the connection answers (408, 413, 414, 431, and 400 for bytes that are no
/// request) are checked by the HTTP tests; the spec lists them on every operation.
@Suite(.sharingAPIServers) struct OpenAPIDriftTests {
    /// One request and the status it must get.
    struct Exchange: Sendable, CustomTestStringConvertible {
        var method: String
        var target: String
        var headers: [String: String] = [:]
        var body: String?
        /// A body that is not text: a photo.
        var binaryBody: [UInt8]?
        var status: Int
        /// Run against a server whose reads need a token (for 401).
        var isPrivate = false
        /// Run against a server that allows these origins (CORS).
        var corsOrigins: [String] = []
        /// Run against a server with `--require-if-match` (for 428).
        var requiresIfMatch = false

        var testDescription: String { "\(method) \(target) → \(status)" }

        /// A write that succeeds changes the list, which the exchanges running at the same time
        /// must not see: it gets a server of its own. Every other exchange shares the suite's
        /// server for its configuration.
        var changesTheList: Bool { !["GET", "HEAD", "OPTIONS"].contains(method) && (200..<300).contains(status) }

        /// What the server's configuration depends on.
        struct Configuration: Hashable, Sendable {
            var isPrivate: Bool
            var corsOrigins: [String]
            var requiresIfMatch: Bool

            func start(mode: APIServer.Mode = .live) async throws -> APIServer {
                let access =
                    isPrivate ? AccessPolicy(tokens: AccessTokens([(name: "a", token: "a-0123456789abcdef")]), isPrivate: true) : nil
                return try await APIServer(
                    mode: mode, access: access, cors: CORSPolicy(origins: corsOrigins), requiresIfMatch: requiresIfMatch)
            }
        }

        var configuration: Configuration {
            Configuration(isPrivate: isPrivate, corsOrigins: corsOrigins, requiresIfMatch: requiresIfMatch)
        }
    }

    /// `If-None-Match` with this value asks with the ETag a GET of the same target answers.
    private static let current = "(current)"
    private static let json = ["Content-Type": "application/json"]
    private static let gzip = ["Accept-Encoding": "gzip"]
    private static let draft = #"{"city": "Lisbon", "country": "Portugal", "nights": 4, "price": 1, "start": "2027-05-01"}"#
    private static let stale = ["If-Match": #""stale""#]
    private static let png = ["Content-Type": "image/png"]
    /// A target that stands for the URL of trip 2's photo (a sample trip's), read from the trip.
    private static let photoOfTrip2 = "/photos/(trip-2)"
    private static let photo = try! PhotoFixture.bytes("plain.png")
    /// What a browser's navigation accepts: it gets a page where there is one.
    private static let page = ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"]
    private static let form = ["Content-Type": "application/x-www-form-urlencoded"]
    /// The token of the private server.
    private static let token = "a-0123456789abcdef"
    private static let bearer = ["Authorization": "Bearer \(token)"]
    private static let exactCount = ["Prefer": "count=exact"]

    static let exchanges: [Exchange] =
        [
            Exchange(method: "GET", target: "/trips", status: 200),
            Exchange(method: "GET", target: "/trips", headers: ["If-None-Match": current], status: 304),
            Exchange(method: "GET", target: "/trips?sort=name", status: 400),
            Exchange(method: "GET", target: "/trips", headers: ["Accept": "image/png"], status: 406),
            Exchange(method: "GET", target: "/trips?after=99", status: 422),
            Exchange(method: "GET", target: "/trips", status: 401, isPrivate: true),
            Exchange(method: "HEAD", target: "/trips", status: 200),
            Exchange(method: "HEAD", target: "/trips", headers: ["If-None-Match": current], status: 304),
            Exchange(method: "HEAD", target: "/trips?sort=name", status: 400),
            Exchange(method: "HEAD", target: "/trips", headers: ["Accept": "image/png"], status: 406),
            Exchange(method: "HEAD", target: "/trips", status: 401, isPrivate: true),
            Exchange(method: "POST", target: "/trips", headers: json, body: draft, status: 201),
            Exchange(method: "POST", target: "/trips", headers: json, body: "{", status: 400),
            Exchange(method: "POST", target: "/trips", headers: ["Content-Type": "text/csv"], body: "a,b", status: 415),
            Exchange(method: "POST", target: "/trips", headers: json, body: draft.replacingOccurrences(of: "4,", with: "0,"), status: 422),
            Exchange(method: "POST", target: "/trips", headers: json, body: draft, status: 401, isPrivate: true),
            Exchange(method: "PATCH", target: "/trips", headers: json, body: #"{"sources":[2],"destination":"end"}"#, status: 200),
            Exchange(method: "PATCH", target: "/trips", headers: json, body: #"{"sources":"#, status: 400),
            Exchange(method: "PATCH", target: "/trips", headers: json, body: #"{"sources":[99],"destination":"end"}"#, status: 422),
            Exchange(
                method: "PATCH", target: "/trips", headers: json.merging(stale) { $1 }, body: #"{"sources":[2],"destination":"end"}"#,
                status: 412),
            Exchange(method: "PATCH", target: "/trips", headers: ["Content-Type": "text/csv"], body: "2", status: 415),
            Exchange(method: "DELETE", target: "/trips?ids=1,3", status: 204),
            Exchange(method: "DELETE", target: "/trips?ids=x", status: 400),
            Exchange(method: "DELETE", target: "/trips?ids=1,99", status: 422),
            Exchange(method: "DELETE", target: "/trips?ids=1", headers: stale, status: 412),
            Exchange(method: "GET", target: "/trips/changes", status: 200),
            Exchange(method: "GET", target: "/trips/changes?since=x", status: 400),
            Exchange(method: "GET", target: "/trips/changes?since=99", status: 410),
            Exchange(method: "GET", target: "/trips/changes", headers: ["Accept": "image/png"], status: 406),
            Exchange(method: "HEAD", target: "/trips/changes", status: 200),
            Exchange(method: "HEAD", target: "/trips/changes?since=99", status: 410),
            Exchange(
                method: "POST", target: "/trips/reorder", headers: json, body: #"{"sources":[2],"destination":{"before":1}}"#, status: 200),
            Exchange(method: "POST", target: "/trips/reorder", headers: json, body: "[", status: 400),
            Exchange(
                method: "POST", target: "/trips/reorder", headers: json.merging(stale) { $1 },
                body: #"{"sources":[2],"destination":"end"}"#,
                status: 412),
            Exchange(method: "POST", target: "/trips/sort", headers: json, body: #"{"by":"price"}"#, status: 200),
            Exchange(method: "POST", target: "/trips/sort", headers: json, body: #"{"by":"name"}"#, status: 422),
            Exchange(method: "GET", target: "/trips/2", status: 200),
            Exchange(method: "GET", target: "/trips/2", headers: ["If-None-Match": current], status: 304),
            Exchange(method: "GET", target: "/trips/99", status: 404),
            Exchange(method: "GET", target: "/trips/2", headers: ["Accept": "image/png"], status: 406),
            Exchange(method: "HEAD", target: "/trips/2", status: 200),
            Exchange(method: "HEAD", target: "/trips/99", status: 404),
            Exchange(method: "PUT", target: "/trips/2", headers: json, body: draft, status: 200),
            Exchange(method: "PUT", target: "/trips/99", headers: json, body: draft, status: 404),
            Exchange(method: "PUT", target: "/trips/2", headers: json, body: "{", status: 400),
            Exchange(method: "PUT", target: "/trips/2", headers: json.merging(stale) { $1 }, body: draft, status: 412),
            Exchange(method: "PUT", target: "/trips/2", headers: json, body: draft.replacingOccurrences(of: "4,", with: "0,"), status: 422),
            Exchange(method: "PUT", target: "/trips/2", headers: ["Content-Type": "text/csv"], body: "a", status: 415),
            Exchange(
                method: "PATCH", target: "/trips/2", headers: ["Content-Type": "application/merge-patch+json"], body: #"{"nights":5}"#,
                status: 200),
            Exchange(
                method: "PATCH", target: "/trips/99", headers: ["Content-Type": "application/merge-patch+json"], body: "{}", status: 404),
            Exchange(method: "PATCH", target: "/trips/2", headers: ["Content-Type": "text/csv"], body: "a", status: 415),
            Exchange(
                method: "PATCH", target: "/trips/2", headers: ["Content-Type": "application/merge-patch+json"], body: #"{"nights":0}"#,
                status: 422),
            Exchange(method: "DELETE", target: "/trips/2", status: 204),
            Exchange(method: "DELETE", target: "/trips/99", status: 404),
            Exchange(method: "DELETE", target: "/trips/2", headers: stale, status: 412),
            Exchange(method: "GET", target: "/trips/2/photo", status: 303),
            Exchange(method: "GET", target: "/trips/99/photo", status: 404),
            Exchange(method: "HEAD", target: "/trips/2/photo", status: 303),
            Exchange(method: "HEAD", target: "/trips/99/photo", status: 404),
            Exchange(method: "PUT", target: "/trips/2/photo", headers: png, binaryBody: photo, status: 200),
            Exchange(method: "PUT", target: "/trips/99/photo", headers: png, binaryBody: photo, status: 404),
            Exchange(method: "PUT", target: "/trips/2/photo", headers: ["Content-Type": "text/csv"], body: "a", status: 415),
            Exchange(method: "PUT", target: "/trips/2/photo", headers: png, binaryBody: Array(photo.prefix(40)), status: 422),
            Exchange(method: "PUT", target: "/trips/2/photo", headers: png.merging(stale) { $1 }, binaryBody: photo, status: 412),
            Exchange(method: "DELETE", target: "/trips/2/photo", status: 200),
            Exchange(method: "DELETE", target: "/trips/99/photo", status: 404),
            Exchange(method: "GET", target: photoOfTrip2, status: 200),
            Exchange(method: "GET", target: photoOfTrip2, headers: ["If-None-Match": current], status: 304),
            Exchange(method: "GET", target: photoOfTrip2, headers: ["Range": "bytes=0-9"], status: 206),
            Exchange(method: "GET", target: photoOfTrip2, headers: ["Range": "bytes=99999999-"], status: 416),
            Exchange(method: "GET", target: photoOfTrip2, headers: ["Accept": "application/json"], status: 406),
            Exchange(method: "GET", target: "/photos/\(unknownPhoto)", status: 404),
            Exchange(method: "HEAD", target: photoOfTrip2, status: 200),
            Exchange(method: "HEAD", target: "/photos/\(unknownPhoto)", status: 404),
            Exchange(method: "GET", target: "/favorites", status: 200),
            Exchange(method: "GET", target: "/favorites", headers: ["If-None-Match": current], status: 304),
            Exchange(method: "GET", target: "/favorites", headers: ["Accept": "image/png"], status: 406),
            Exchange(method: "HEAD", target: "/favorites", status: 200),
            Exchange(method: "POST", target: "/favorites", headers: ["Content-Type": "text/plain"], body: "Vancouver", status: 200),
            Exchange(method: "POST", target: "/favorites", headers: ["Content-Type": "text/plain"], body: "Atlantis", status: 422),
            Exchange(method: "POST", target: "/favorites", headers: ["Content-Type": "text/csv"], body: "a", status: 415),
            Exchange(method: "PATCH", target: "/favorites", headers: json, body: "[2]", status: 200),
            Exchange(method: "PATCH", target: "/favorites", headers: json, body: "[", status: 400),
            Exchange(method: "PUT", target: "/favorites/2", status: 200),
            Exchange(method: "PUT", target: "/favorites/99", status: 404),
            Exchange(method: "DELETE", target: "/favorites/2", status: 200),
            Exchange(method: "DELETE", target: "/favorites/99", status: 404),
            Exchange(method: "GET", target: "/health", status: 200),
            Exchange(method: "GET", target: "/health", headers: ["Accept": "image/png"], status: 406),
            Exchange(method: "HEAD", target: "/health", status: 200),
            Exchange(method: "GET", target: "/livez", status: 200),
            Exchange(method: "HEAD", target: "/livez", status: 200),
            Exchange(method: "GET", target: "/readyz", status: 200),
            Exchange(method: "HEAD", target: "/readyz", status: 200),
            Exchange(method: "GET", target: "/metrics", status: 200),
            Exchange(method: "HEAD", target: "/metrics", status: 200),
            Exchange(method: "GET", target: "/openapi.yaml", status: 200),
            Exchange(method: "HEAD", target: "/openapi.yaml", status: 200),
            Exchange(method: "GET", target: "/problems/stale-if-match", status: 200),
            Exchange(method: "GET", target: "/problems/stale-if-match", headers: ["Accept": "image/png"], status: 406),
            Exchange(method: "GET", target: "/problems/no-such-kind", status: 404),
            Exchange(method: "HEAD", target: "/problems/stale-if-match", status: 200),
            Exchange(method: "HEAD", target: "/problems/no-such-kind", status: 404),
            Exchange(method: "GET", target: "/", status: 303),
            Exchange(method: "HEAD", target: "/", status: 303),
            Exchange(method: "GET", target: "/assets/trips.css", status: 200),
            Exchange(method: "GET", target: "/assets/trips.css", headers: ["If-None-Match": current], status: 304),
            Exchange(method: "HEAD", target: "/assets/trips.css", status: 200),
            Exchange(method: "GET", target: "/assets/trips.js", status: 200),
            Exchange(method: "HEAD", target: "/assets/trips.js", status: 200),
            Exchange(method: "GET", target: "/assets/trips.svg", status: 200),
            Exchange(method: "HEAD", target: "/assets/trips.svg", status: 200),
            Exchange(method: "GET", target: "/assets/words.js?lang=pl", status: 200),
            Exchange(method: "GET", target: "/assets/words.js?lang=xx", status: 400),
            Exchange(method: "HEAD", target: "/assets/words.js?lang=ja", status: 200),
            Exchange(
                method: "OPTIONS", target: "/trips", headers: ["Origin": "https://app.example", "Access-Control-Request-Method": "POST"],
                status: 204, corsOrigins: ["https://app.example"]),
            Exchange(
                method: "GET", target: "/trips", headers: ["Origin": "https://app.example"], status: 200,
                corsOrigins: ["https://app.example"]),
            Exchange(method: "OPTIONS", target: "/trips/9223372036854775808", status: 404),
            Exchange(method: "GET", target: "/trips", headers: ["Host": "attacker.example"], status: 421),
            Exchange(method: "HEAD", target: "/trips/2", headers: ["Host": "attacker.example"], status: 421),
            Exchange(method: "OPTIONS", target: "/favorites", headers: ["Host": "attacker.example"], status: 421),
            Exchange(
                method: "POST", target: "/trips", headers: ["Content-Type": "text/plain", "Origin": "https://attacker.example"],
                body: "Oslo, Norway: 2 nights from June 1, 2027", status: 403),
            Exchange(method: "DELETE", target: "/favorites/2", headers: ["Sec-Fetch-Site": "cross-site"], status: 403),
            Exchange(method: "GET", target: "/trips", headers: page, status: 401, isPrivate: true),
            Exchange(method: "GET", target: "/session", status: 200, isPrivate: true),
            Exchange(method: "GET", target: "/session", headers: page, status: 200, isPrivate: true),
            Exchange(method: "GET", target: "/session", headers: ["Accept": "image/png"], status: 406, isPrivate: true),
            Exchange(method: "HEAD", target: "/session", status: 200, isPrivate: true),
            Exchange(method: "HEAD", target: "/session", headers: ["Accept": "image/png"], status: 406, isPrivate: true),
            Exchange(method: "POST", target: "/session", headers: form, body: "token=\(token)", status: 204, isPrivate: true),
            Exchange(method: "POST", target: "/session", headers: form, body: "token=\(token)&next=/trips", status: 303, isPrivate: true),
            Exchange(method: "POST", target: "/session", headers: form, body: "token=x\(token)", status: 401, isPrivate: true),
            Exchange(
                method: "POST", target: "/session", headers: form.merging(page) { $1 }, body: "token=x\(token)&next=/trips", status: 401,
                isPrivate: true),
            Exchange(method: "POST", target: "/session", headers: form, body: "token=\(token)", status: 404),
            Exchange(method: "POST", target: "/session", headers: json, body: "{}", status: 415, isPrivate: true),
            Exchange(method: "POST", target: "/session", headers: form, body: "token=\(token)&next=//x", status: 422, isPrivate: true),
            Exchange(
                method: "POST", target: "/session", headers: form, body: "token=" + String(repeating: "a", count: 9000), status: 413,
                isPrivate: true),
            Exchange(
                method: "POST", target: "/session", headers: form.merging(["Origin": "https://attacker.example"]) { $1 },
                body: "token=\(token)", status: 403, isPrivate: true),
            Exchange(method: "POST", target: "/session/end", status: 204, isPrivate: true),
            Exchange(method: "POST", target: "/session/end", headers: form, body: "next=/trips", status: 303, isPrivate: true),
            Exchange(method: "POST", target: "/session/end", headers: json, body: "{}", status: 415, isPrivate: true),
            Exchange(method: "POST", target: "/session/end", headers: form, body: "next=x", status: 422, isPrivate: true),
            Exchange(
                method: "POST", target: "/session/end", headers: ["Sec-Fetch-Site": "cross-site"], status: 403, isPrivate: true),
        ] + unauthorized + options + compressed + conventions

    /// What reads tell caches (`Cache-Control`, `Vary`), the links and total of a paged read
    /// (`Link`, `Trips-Total`, `Preference-Applied`), and `--require-if-match`'s 428 on every
    /// change of trips.
    static let conventions: [Exchange] =
        [
            Exchange(method: "GET", target: "/trips?limit=2", headers: exactCount, status: 200),
            Exchange(method: "HEAD", target: "/trips?limit=2", headers: exactCount, status: 200),
            Exchange(method: "GET", target: "/trips?country=Canada&after=2", headers: exactCount.merging(page) { $1 }, status: 200),
            Exchange(method: "GET", target: "/favorites?limit=1", headers: exactCount, status: 200),
            Exchange(method: "HEAD", target: "/favorites?limit=1", headers: exactCount, status: 200),
            Exchange(method: "GET", target: "/trips/2", headers: page, status: 200),
            Exchange(method: "HEAD", target: "/trips/2", headers: ["If-None-Match": current], status: 304),
            Exchange(method: "HEAD", target: "/favorites", headers: ["If-None-Match": current], status: 304),
            Exchange(method: "GET", target: "/trips", headers: bearer, status: 200, isPrivate: true),
            Exchange(method: "GET", target: "/trips/2", headers: bearer, status: 200, isPrivate: true),
            Exchange(method: "HEAD", target: "/trips/2", headers: bearer, status: 200, isPrivate: true),
        ]
        + [
            ("POST", "/trips"), ("PATCH", "/trips"), ("DELETE", "/trips?ids=2"), ("POST", "/trips/reorder"), ("POST", "/trips/sort"),
            ("PUT", "/trips/2"), ("PATCH", "/trips/2"), ("DELETE", "/trips/2"), ("PUT", "/trips/2/photo"), ("DELETE", "/trips/2/photo"),
            ("PATCH", "/favorites"), ("POST", "/favorites"), ("PUT", "/favorites/2"), ("DELETE", "/favorites/2"),
        ].map { method, target in
            Exchange(method: method, target: target, headers: json, body: "{}", status: 428, requiresIfMatch: true)
        }

    /// Answers of 1 KiB or more to a client that takes gzip: `Content-Encoding` and `Vary`.
    static let compressed: [Exchange] = [
        Exchange(method: "GET", target: "/trips", headers: gzip, status: 200),
        Exchange(method: "HEAD", target: "/trips", headers: gzip, status: 200),
        Exchange(method: "GET", target: "/trips", headers: gzip.merging(["If-None-Match": current]) { $1 }, status: 304),
        Exchange(method: "POST", target: "/trips/sort", headers: json.merging(gzip) { $1 }, body: #"{"by":"price"}"#, status: 200),
        Exchange(method: "GET", target: "/trips/changes?since=0", headers: gzip, status: 200),
        Exchange(method: "GET", target: "/metrics", headers: gzip, status: 200),
        Exchange(method: "GET", target: "/openapi.yaml", headers: gzip, status: 200),
        Exchange(method: "HEAD", target: "/openapi.yaml", headers: gzip, status: 200),
        Exchange(method: "GET", target: "/assets/trips.js", headers: gzip, status: 200),
        Exchange(method: "GET", target: "/assets/trips.css", headers: gzip.merging(["If-None-Match": current]) { $1 }, status: 304),
        Exchange(method: "GET", target: "/assets/words.js?lang=de", headers: gzip, status: 200),
        // A problem document over 1 KiB: its detail names the path.
        Exchange(method: "GET", target: "/photos/\(String(repeating: "0", count: 1100)).jpg", headers: gzip, status: 404),
    ]

    /// A name no stored photo has.
    private static let unknownPhoto = String(repeating: "0", count: 64) + ".jpg"

    /// A path of a template: trip 2, or a photo name.
    private static func example(of template: String) -> String {
        template.replacingOccurrences(of: "{id}", with: "2").replacingOccurrences(of: "{photo}", with: unknownPhoto)
            .replacingOccurrences(of: "{kind}", with: ProblemType.staleIfMatch.name)
    }

    /// Every path answers OPTIONS, with or without a token.
    static let options: [Exchange] = TripsAPI.routes.resources.map { resource in
        Exchange(method: "OPTIONS", target: example(of: resource.template), status: 204, isPrivate: true)
    }

    /// With tokens and private reads, every operation asks for credentials (401) but those
    /// that need none: the probes, the page's assets, signing in and out.
    static let unauthorized: [Exchange] = TripsAPI.routes.resources.flatMap { resource -> [Exchange] in
        let target = example(of: resource.template)
        return resource.allowedMethods.filter { method in
            method != .options && TripsAPI.routes.match(method, target)?.route?.traits.contains(.needsNoCredentials) != true
        }.map {
            Exchange(method: $0.rawValue, target: target, status: 401, isPrivate: true)
        }
    }

    /// Fields every answer may carry that the spec does not list answer by answer: the
    /// message's framing, and `Date` and `Server`, which every answer has.
    private static let framing: Set<String> = ["content-length", "content-type", "connection", "transfer-encoding", "date", "server"]
    /// The CORS fields every answer to an allowed origin carries, which the spec's description
    /// says once (a preflight's answer lists them).
    private static let cors: Set<String> = ["access-control-allow-origin", "access-control-expose-headers"]

    @Test(arguments: exchanges)
    func theServerAnswersAStatusAndHeadersTheSpecListsForTheOperation(exchange: Exchange) async throws {
        let configuration = exchange.configuration
        let api: APIServer
        if exchange.changesTheList {
            api = try await configuration.start()
        } else {
            api = try await SharedAPIServers.server(for: configuration) { try await configuration.start() }
        }
        defer { if exchange.changesTheList { api.stop() } }
        var headers = exchange.headers
        var target = exchange.target
        if target == Self.photoOfTrip2 {
            guard case .object(let photo)? = try await api.request("GET", "/trips/2").member("photo"), case .string(let url)? = photo["url"]
            else { throw TestFailure("trip 2 has no photo") }
            target = url
        }
        if headers["If-None-Match"] == Self.current {
            headers["If-None-Match"] = try await api.request("GET", target).field("ETag")
        }
        let response = try await api.request(
            exchange.method, target, headers: headers, body: exchange.body, binaryBody: exchange.binaryBody)
        #expect(response.status == exchange.status, "\(response.text)")

        let path = String(exchange.target.prefix { $0 != "?" })
        let operation = "\(exchange.method) \(Self.template(of: path))"
        let responses = try #require(Self.spec[operation], "\(operation) is not in the spec")
        guard let documented = responses[response.status] else {
            Issue.record("the spec lists \(responses.keys.sorted()) for \(operation), not \(response.status)")
            return
        }
        let sent = Set(response.fields.map { $0.name.lowercased() }).subtracting(Self.framing)
            .subtracting(exchange.method == "OPTIONS" ? [] : Self.cors)
        #expect(
            sent.subtracting(documented).isEmpty,
            "\(operation) \(response.status) sends \(sent.subtracting(documented).sorted()), not in the spec")
    }

    /// Refusals that come before routing, which every operation can answer: 421 for a Host
    /// the server does not answer for, and 403 for a change from another site's page.
    @Test func everyOperationListsTheRefusalsItCanAnswer() {
        for (operation, responses) in Self.spec {
            #expect(responses[421] != nil, "\(operation) does not list 421")
            let method = String(operation.prefix { $0 != " " })
            let changes = ["POST", "PUT", "PATCH", "DELETE"].contains(method)
            #expect((responses[403] != nil) == changes, "\(operation): 403 is listed on changes, and only there")
            let changesTrips = changes && !operation.contains(" /session")
            #expect((responses[428] != nil) == changesTrips, "\(operation): 428 is listed on changes of trips, and only there")
        }
    }

    /// The exchanges that share a server change nothing, or those running at the same time
    /// would see it: after all of them, one after the other, the list is where it started.
    @Test func theExchangesThatShareAServerChangeNothing() async throws {
        for (configuration, exchanges) in Dictionary(grouping: Self.exchanges.filter { !$0.changesTheList }, by: \.configuration) {
            let api = try await configuration.start(mode: .router)
            for exchange in exchanges {
                _ = try await api.request(
                    exchange.method, exchange.target, headers: exchange.headers, body: exchange.body, binaryBody: exchange.binaryBody)
            }
            #expect(api.store.list.revision == 0, "\(configuration)")
        }
    }

    /// The route table and the spec list the same operations (`HEAD` with every `GET`,
    /// `OPTIONS` on every path), and each operation that reads a body the same media types.
    @Test func theRouteTableAndTheSpecListTheSameOperationsAndBodies() {
        let resources = TripsAPI.routes.resources
        let routed = Set(resources.flatMap { resource in resource.allowedMethods.map { "\($0) \(resource.template)" } })
        #expect(!routed.isEmpty)
        #expect(routed == Set(Self.spec.keys))
        var bodies: [String: Set<String>] = [:]
        for resource in resources {
            for route in resource.routes where !route.bodyTypes.isEmpty {
                bodies["\(route.method) \(resource.template)"] = Set(route.bodyTypes.map(\.description))
            }
        }
        #expect(!bodies.isEmpty)
        #expect(bodies == Self.specBodies)
    }

    @Test func everyOperationOfTheSpecHasAnExchange() {
        let exercised = Set(Self.exchanges.map { "\($0.method) \(Self.template(of: String($0.target.prefix { $0 != "?" })))" })
        #expect(Set(Self.spec.keys) == exercised)
    }

    /// The spec's template for a path: `/trips/{id}` for `/trips/2` (and for an id too large
    /// to route), `/trips/{id}/photo` for `/trips/2/photo`, `/photos/{photo}` for a photo,
    /// `/problems/{kind}` for a kind of problem.
    private static func template(of path: String) -> String {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 3 else { return path }
        if segments[1] == "photos" {
            segments[2] = "{photo}"
        } else if segments[1] == "problems" {
            segments[2] = "{kind}"
        } else if !segments[2].isEmpty, segments[2].allSatisfy(\.isNumber) {
            segments[2] = "{id}"
        }
        return segments.joined(separator: "/")
    }

    /// Each operation's answers (`GET /trips` → 200, 304, …), each with the header fields it
    /// lists (lowercased), read from the compiled-in openapi.yaml by its indentation:
    /// `$ref`s to `components/responses` and `responses: *anchor` resolved.
    static let spec: [String: [Int: Set<String>]] = {
        let (lines, indent, key) = (specLines, Self.indent, Self.key)
        /// The header fields a response lists inline: the keys under its `headers:`.
        func inlineHeaders(at index: Int) -> Set<String> {
            let level = indent(lines[index])
            var names = Set<String>()
            var inHeaders = false
            for line in lines[(index + 1)...] where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                let depth = indent(line)
                if depth <= level { break }
                if depth == level + 2 { inHeaders = key(line) == "headers" }
                if inHeaders, depth == level + 4 { names.insert(key(line).lowercased()) }
            }
            return names
        }
        var components: [String: Set<String>] = [:]
        var section = ""
        var subsection = ""
        for (index, line) in lines.enumerated() {
            if let first = line.first, first != " ", first != "#" { section = key(line) }
            if section == "components", indent(line) == 2 { subsection = key(line) }
            if section == "components", subsection == "responses", indent(line) == 4 { components[key(line)] = inlineHeaders(at: index) }
        }
        /// A response at `index`: a `$ref` to a component, or inline.
        func headers(at index: Int) -> Set<String> {
            if let reference = lines[index].split(separator: "#/components/responses/").dropFirst().first {
                return components[String(reference.prefix { $0 != "'" })] ?? []
            }
            return inlineHeaders(at: index)
        }
        var anchors: [String: [Int: Set<String>]] = [:]
        var anchor: String?
        var operations: [String: [Int: Set<String>]] = [:]
        var path = ""
        var operation: String?
        var inResponses = false
        for (index, line) in lines.enumerated() {
            if let first = line.first, first != " ", first != "#" { section = key(line) }
            let depth = indent(line)
            if section == "x-response-sets" {
                if depth == 2, line.contains("&") { anchor = line.split(separator: "&").last.map(String.init) }
                if let anchor, depth == 4, let code = Int(key(line)) { anchors[anchor, default: [:]][code] = headers(at: index) }
            }
            guard section == "paths" else { continue }
            if depth == 2, line.hasPrefix("  /") {
                path = key(line)
            } else if depth == 4 {
                operation = specMethods.contains(key(line)) ? "\(key(line).uppercased()) \(path)" : nil
                inResponses = false
            } else if let operation, depth == 6 {
                inResponses = key(line) == "responses"
                if inResponses, let alias = line.split(separator: "*").dropFirst().first {
                    operations[operation, default: [:]].merge(anchors[String(alias)] ?? [:]) { $1 }
                }
            } else if let operation, inResponses, depth == 8, let code = Int(key(line)) {
                operations[operation, default: [:]][code] = headers(at: index)
            }
        }
        return operations
    }()

    /// The media types each operation's request body lists (`PUT /trips/{id}` →
    /// application/json), inline or through a `$ref` to `components/requestBodies`.
    static let specBodies: [String: Set<String>] = {
        let (indent, key) = (Self.indent, Self.key)
        var components: [String: Set<String>] = [:]
        var bodies: [String: Set<String>] = [:]
        var references: [String: String] = [:]
        var (section, subsection, component, path) = ("", "", "", "")
        var operation: String?
        var (inBody, inContent) = (false, false)
        for line in specLines where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let depth = indent(line)
            if let first = line.first, first != " ", first != "#" { section = key(line) }
            if section == "components" {
                if depth == 2 { subsection = key(line) }
                guard subsection == "requestBodies" else { continue }
                if depth == 4 { component = key(line) }
                if depth == 6 { inContent = key(line) == "content" }
                if depth == 8, inContent { components[component, default: []].insert(key(line)) }
            } else if section == "paths" {
                if depth == 2 { path = key(line) }
                if depth == 4 { operation = specMethods.contains(key(line)) ? "\(key(line).uppercased()) \(path)" : nil }
                guard let operation else { continue }
                if depth == 6 {
                    (inBody, inContent) = (key(line) == "requestBody", false)
                    if inBody, let name = line.split(separator: "#/components/requestBodies/").dropFirst().first {
                        references[operation] = String(name.prefix { $0 != "'" })
                    }
                }
                if depth == 8, inBody { inContent = key(line) == "content" }
                if depth == 10, inContent { bodies[operation, default: []].insert(key(line)) }
            }
        }
        for (operation, name) in references { bodies[operation] = components[name] }
        return bodies
    }()

    /// No mapping of the spec names a key twice: YAML forbids it, and the tools that read the
    /// spec differ on which value wins (openapi-python-client refuses the file). Read by
    /// indentation: a list item opens a mapping of its own; block scalars (`|`) are skipped.
    @Test func noMappingInTheSpecNamesAKeyTwice() {
        var mappings: [(indent: Int, keys: Set<String>)] = []  // the open ones, outermost first
        var scalarIndent: Int?  // lines deeper than this are a block scalar's text
        for (number, line) in Self.specLines.enumerated() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            var level = Self.indent(line)
            if let scalar = scalarIndent {
                if level > scalar { continue }
                scalarIndent = nil
            }
            var entry = Substring(text)
            if entry.hasPrefix("- ") {
                level += 2
                entry = entry.dropFirst(2)
                mappings.removeAll { $0.indent >= level }
                mappings.append((level, []))
            }
            guard entry.hasSuffix(":") || entry.contains(": "), !entry.hasPrefix("{"), !entry.hasPrefix("-") else { continue }
            let name = Self.key(entry)
            mappings.removeAll { $0.indent > level }
            if mappings.last?.indent != level { mappings.append((level, [])) }
            #expect(mappings[mappings.count - 1].keys.insert(name).inserted, "openapi.yaml line \(number + 1): \(name) again")
            if entry.hasSuffix("|") || entry.hasSuffix(">") || entry.hasSuffix("|-") { scalarIndent = level }
        }
    }

    private static let specLines = String(decoding: OpenAPISpec.document, as: UTF8.self).split(
        separator: "\n", omittingEmptySubsequences: false)
    private static let specMethods: Set<String> = ["get", "head", "post", "put", "patch", "delete", "options"]
    private static func indent(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
    private static func key(_ line: Substring) -> String {
        String(line.drop { $0 == " " }.prefix { $0 != ":" }).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
    }
}
