import Foundation
import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// What a browser page sends on a load.
private let pageLoad = ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"]
private let sentence = "Oslo, Norway: 2 nights from June 1, 2027"

/// The `Host` allow-list, against DNS rebinding: a page whose name is made to resolve to
/// 127.0.0.1 reaches the server with its own name in `Host`. Over a live socket.
@Suite struct APIHostTests {
    /// An absolute-form target names the host the server checks, whatever `Host` says
    /// (RFC 9112 §3.2.2): a proxy that forwards one is not fooled by a `Host` it did not check.
    @Test func anAbsoluteFormTargetsHostIsTheOneChecked() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        #expect(try await api.request("GET", "http://attacker.example/trips/2").status == 421)
        #expect(try await api.request("GET", "http://localhost/trips/2", headers: ["Host": "attacker.example"]).status == 200)
        #expect(try await api.request("GET", "http:///trips/2").status == 400)
    }

    @Test func aHostTheServerDoesNotAnswerForIs421AndNothingHappens() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let port = api.port
        for host in [
            "attacker.example", "attacker.example:\(port)", "127.0.0.1.attacker.example", "localhost.attacker.example",
            "128.0.0.1", "127.0.0.256:\(port)", "127.0.0", "[::2]:\(port)", "",
        ] {
            let write = try await api.request("POST", "/trips", headers: ["Host": host, "Content-Type": "text/plain"], body: sentence)
            #expect(write.status == 421, "\(host)")
            #expect(write.field("Content-Type") == "application/problem+json", "\(host)")
            #expect(try write.member("status") == .number("421"), "\(host)")
            let page = try await api.request("GET", "/trips/2", headers: pageLoad.merging(["Host": host]) { $1 })
            #expect(page.status == 421, "\(host)")
            #expect(!page.text.contains("og:url"), "\(host)")
            #expect(try await api.request("OPTIONS", "/trips", headers: ["Host": host]).status == 421, "\(host)")
        }
        #expect(api.store.list == SampleTrips.list)
    }

    @Test func loopbackNamesAndAddressesAreAnsweredOnAnyPort() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let port = api.port
        for host in [
            "localhost", "localhost:\(port)", "LocalHost:\(port)", "127.0.0.1:\(port)", "127.0.0.5", "127.255.255.254:80", "[::1]",
            "[::1]:\(port)",
        ] {
            #expect(try await api.request("GET", "/trips/2", headers: ["Host": host]).status == 200, "\(host)")
        }
        let created = try await api.request(
            "POST", "/trips", headers: ["Host": "[::1]:\(port)", "Content-Type": "text/plain"], body: sentence)
        #expect(created.status == 201)
    }

    /// The parser remembers its connection's last `Host` and whether it is loopback: one
    /// keep-alive connection that switches names is judged on each request's own.
    @Test func eachRequestOnAConnectionIsJudgedByItsOwnHost() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let port = api.port
        let statuses = try await onOwnThread {
            let client = try TestClient(port: port)
            return try ["127.0.0.1:\(port)", "attacker.example", "127.0.0.1:\(port)", "localhost.attacker.example", "[::1]"].map {
                host in
                try client.exchange(TestRequest(method: "GET", target: "/trips/2", headers: ["Host": host], closes: false)).status
            }
        }
        #expect(statuses == [200, 421, 200, 421, 200])
    }

    @Test func aNameGivenWithAllowedHostIsAnsweredAndIsTheOneTheSharedPageNames() async throws {
        let names = ["trips.example.com", "fe80::1"].compactMap(HostAllowList.spelling(of:))
        let api = try await APIServer(mode: .live, hosts: HostAllowList(listeningOn: "0.0.0.0", allowedHosts: names))
        defer { api.stop() }
        for host in ["trips.example.com", "Trips.Example.COM:8443", "[fe80::1]:8080", "localhost:\(api.port)"] {
            #expect(try await api.request("GET", "/trips/2", headers: ["Host": host]).status == 200, "\(host)")
        }
        let page = try await api.request("GET", "/trips/2", headers: pageLoad.merging(["Host": "trips.example.com"]) { $1 })
        #expect(page.text.contains(#"<meta property="og:url" content="http://trips.example.com/trips/2">"#))
        for host in ["attacker.example", "example.com", "trips.example.com.attacker.example"] {
            #expect(try await api.request("GET", "/trips/2", headers: ["Host": host]).status == 421, "\(host)")
        }
    }

    /// What `trips-server --host 0.0.0.0` without `--allowed-host` builds: it cannot know the
    /// names it is reached by, so it answers every one.
    @Test func listeningBeyondLoopbackWithoutAllowedHostAnswersAnyHost() async throws {
        let hosts = HostAllowList(listeningOn: "0.0.0.0", allowedHosts: [])
        #expect(hosts.allowsAnyHost)
        let api = try await APIServer(mode: .live, hosts: hosts)
        defer { api.stop() }
        #expect(try await api.request("GET", "/trips/2", headers: ["Host": "attacker.example"]).status == 200)
        let created = try await api.request(
            "POST", "/trips", headers: ["Host": "trips.internal:8080", "Content-Type": "text/plain"], body: sentence)
        #expect(created.status == 201)
    }

    @Test func whatTheServerListensOnDecidesWhichHostsItAnswers() {
        #expect(!HostAllowList(listeningOn: "127.0.0.1", allowedHosts: []).allowsAnyHost)
        #expect(!HostAllowList(listeningOn: "::1", allowedHosts: []).allowsAnyHost)
        #expect(!HostAllowList(listeningOn: "localhost", allowedHosts: []).allowsAnyHost)
        #expect(HostAllowList(listeningOn: "::", allowedHosts: []).allowsAnyHost)
        #expect(!HostAllowList(listeningOn: "::", allowedHosts: ["localhost"]).allowsAnyHost)
        #expect(!HostAllowList.loopback.allows("attacker.example"))
        #expect(HostAllowList.loopback.allows(nil))  // HTTP/1.0 without Host: no name to check
    }

    @Test(arguments: [
        ("trips.example.com", "trips.example.com"), ("Trips.Example.COM", "trips.example.com"), ("10.0.0.7", "10.0.0.7"),
        ("FE80:0:0:0:0:0:0:1", "[fe80::1]"), ("[::1]", "[::1]"),
    ])
    func anAllowedHostIsSpelledAsABrowserSendsIt(name: String, spelled: String) {
        #expect(HostAllowList.spelling(of: name) == spelled)
    }

    @Test(arguments: ["", "trips.example.com:80", "a b", "user@trips.example.com", "[trips.example.com]", "[::1]:80"])
    func anAllowedHostWithAPortOrNoHostSyntaxIsRefused(name: String) {
        #expect(HostAllowList.spelling(of: name) == nil)
    }
}

private let alice = "alice-0123456789abcdef"

/// Changes from other sites' pages (cross-site request forgery), refused whatever the token.
/// Over a live socket.
@Suite struct APICrossSiteWriteTests {
    private static let foreign = ["Origin": "https://attacker.example", "Sec-Fetch-Site": "cross-site"]

    /// The attack as it was found: a form on any page, `enctype=text/plain`, posting to a
    /// server that runs in its default mode.
    @Test func aCrossSiteFormPostIs403AndCreatesNothing() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let form = Self.foreign.merging(["Content-Type": "text/plain"]) { $1 }
        let trips = try await api.request("POST", "/trips", headers: form, body: "\(sentence)\n")
        #expect(trips.status == 403)
        #expect(trips.field("Content-Type") == "application/problem+json")
        let favorites = try await api.request("POST", "/favorites", headers: form, body: "Vancouver")
        #expect(favorites.status == 403)
        #expect(api.store.list == SampleTrips.list)
    }

    @Test(arguments: [
        ("POST", "/trips", ["Origin": "https://attacker.example", "Sec-Fetch-Site": "cross-site"]),
        ("PUT", "/favorites/2", ["Origin": "https://attacker.example"]),
        ("DELETE", "/trips/6", ["Sec-Fetch-Site": "cross-site"]),
        ("PATCH", "/trips/2", ["Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site"]),
        ("PATCH", "/favorites", ["Sec-Fetch-Site": "same-site"]),
        ("DELETE", "/favorites/1", ["Origin": "null"]),
        ("POST", "/trips/sort", ["Origin": "http://localhost.attacker.example"]),
    ])
    func aChangeFromAnotherSitesPageIs403EvenWithAValidToken(method: String, target: String, headers: [String: String]) async throws {
        let api = try await APIServer(
            mode: .live, access: AccessPolicy(tokens: AccessTokens([(name: "alice", token: alice)]), isPrivate: false),
            cors: CORSPolicy(origins: ["https://app.example"]))
        defer { api.stop() }
        let bodies = ["/trips": sentence, "/trips/2": #"{"nights":9}"#, "/favorites": "[3]", "/trips/sort": #"{"by":"price"}"#]
        let contentTypes = ["/trips": "text/plain", "/trips/2": "application/merge-patch+json"]
        var fields = headers.merging(["Authorization": "Bearer \(alice)"]) { $1 }
        if bodies[target] != nil { fields["Content-Type"] = contentTypes[target] ?? "application/json" }
        let refused = try await api.request(method, target, headers: fields, body: bodies[target])
        #expect(refused.status == 403, "\(refused.text)")
        #expect(api.store.list == SampleTrips.list)
        // Without a token too: the refusal comes first.
        fields["Authorization"] = nil
        #expect(try await api.request(method, target, headers: fields, body: bodies[target]).status == 403)
    }

    @Test func thePagesOwnChangesAnAllowedOriginsAndClientsWithoutABrowserAreAnswered() async throws {
        let api = try await APIServer(
            mode: .live, access: AccessPolicy(tokens: AccessTokens([(name: "alice", token: alice)]), isPrivate: false),
            cors: CORSPolicy(origins: ["https://app.example"]))
        defer { api.stop() }
        let port = api.port
        let token = ["Authorization": "Bearer \(alice)"]
        let allowed: [[String: String]] = [
            ["Host": "localhost:\(port)", "Origin": "http://localhost:\(port)", "Sec-Fetch-Site": "same-origin"],  // the page
            ["Host": "127.0.0.1:\(port)", "Origin": "http://127.0.0.1:\(port)"],
            ["Host": "localhost:\(port)", "Origin": "https://localhost:\(port)"],  // behind a proxy that ends TLS
            ["Origin": "https://app.example", "Sec-Fetch-Site": "cross-site"],  // --cors-origin
            ["Sec-Fetch-Site": "none"],  // typed by the user
            [:],  // curl, scripts, generated clients
        ]
        for (index, headers) in allowed.enumerated() {
            let answer = try await api.request("PUT", "/favorites/\(index + 1)", headers: headers.merging(token) { $1 })
            #expect(answer.status == 200, "\(headers): \(answer.text)")
        }
        // Reads are not changes: a foreign page's GET is answered (CORS keeps it from reading it).
        let read = try await api.request("GET", "/trips/2", headers: Self.foreign)
        #expect(read.status == 200)
        #expect(read.field("Access-Control-Allow-Origin") == nil)
    }
}
