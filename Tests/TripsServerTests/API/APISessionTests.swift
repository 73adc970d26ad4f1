import Foundation
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsServer
@testable import TripsStore

private let alice = "alice-0123456789abcdef"
private let tokens = AccessTokens([(name: "alice", token: alice), (name: "bob", token: "bob-fedcba9876543210")])
private let form = ["Content-Type": "application/x-www-form-urlencoded"]
/// What the page's own requests carry: its origin, which is the request's `Host`'s.
private let ownPage = ["Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"]
private let browser = ["Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]

/// Signing a browser in with a token, and the session cookie that then stands for it
/// (`POST /session`, `POST /session/end`, `GET /session`). Over a live socket.
@Suite struct APISessionTests {
    /// A live server with tokens (and private reads, unless told otherwise) on `clock`.
    private func start(
        isPrivate: Bool = true, clock: any SchedulingClock = SystemClock(), capacity: Int = 10_000,
        cors: CORSPolicy = CORSPolicy(origins: [])
    ) async throws -> APIServer {
        let access = AccessPolicy(tokens: tokens, isPrivate: isPrivate, clock: clock, sessionCapacity: capacity)
        return try await APIServer(mode: .live, clock: clock, access: access, cors: cors)
    }

    /// Signs in with `token` and answers the `trips-session=…` pair to send back as `Cookie`.
    private func signIn(_ api: APIServer, token: String = alice, headers: [String: String] = ownPage) async throws -> String {
        let answer = try await api.request("POST", "/session", headers: form.merging(headers) { $1 }, body: "token=\(token)")
        #expect(answer.status == 204, "\(answer.text)")
        let setCookie = try #require(answer.field("Set-Cookie"))
        return String(setCookie.prefix { $0 != ";" })
    }

    @Test func signingInSetsAStrictHttpOnlySessionCookieAndNeverEchoesTheToken() async throws {
        let api = try await start()
        defer { api.stop() }
        let answer = try await api.request("POST", "/session", headers: form.merging(ownPage) { $1 }, body: "token=\(alice)")
        #expect(answer.status == 204)
        let setCookie = try #require(answer.field("Set-Cookie"))
        let attributes = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let pair = try #require(attributes.first)
        #expect(pair.hasPrefix("trips-session="))
        let value = pair.dropFirst("trips-session=".count)
        #expect(value.count == 129 && value.filter { $0 == "." }.count == 1)
        #expect(Set(attributes.dropFirst()) == ["Path=/", "Max-Age=43200", "HttpOnly", "SameSite=Strict"])
        #expect(answer.field("Cache-Control") == "no-store")
        #expect(!answer.text.contains(alice) && !setCookie.contains(alice))
        // Two sign-ins, two ids.
        #expect(try await signIn(api) != "trips-session=\(value)")
    }

    @Test func aPageOnHTTPSGetsASecureCookieAndAPlainHTTPPageNever() async throws {
        let api = try await start()
        defer { api.stop() }
        let secure = try await api.request(
            "POST", "/session", headers: form.merging(["Origin": "https://localhost"]) { $1 }, body: "token=\(alice)")
        #expect(secure.field("Set-Cookie")?.hasSuffix("; Secure") == true)
        for headers in [ownPage, [:]] {
            let plain = try await api.request("POST", "/session", headers: form.merging(headers) { $1 }, body: "token=\(alice)")
            #expect(plain.field("Set-Cookie")?.contains("Secure") == false)
        }
        // A proxy's word is not taken: X-Forwarded-Proto changes nothing.
        let forwarded = try await api.request(
            "POST", "/session", headers: form.merging(["X-Forwarded-Proto": "https"]) { $1 }, body: "token=\(alice)")
        #expect(forwarded.field("Set-Cookie")?.contains("Secure") == false)
    }

    @Test func theFormsNextMakesA303BackToThePage() async throws {
        let api = try await start()
        defer { api.stop() }
        let answer = try await api.request(
            "POST", "/session", headers: form.merging(ownPage) { $1 }, body: "token=\(alice)&next=%2Ftrips%2F2%3Fx%3D1")
        #expect(answer.status == 303)
        #expect(answer.field("Location") == "/trips/2?x=1")
        #expect(answer.field("Set-Cookie")?.hasPrefix("trips-session=") == true)
        // A character no URI holds is percent-encoded, not copied raw into `Location`.
        let quoted = try await api.request(
            "POST", "/session", headers: form.merging(ownPage) { $1 }, body: "token=\(alice)&next=%2Ftrips%3Fq%3D%22%3C%3E%7B")
        #expect(quoted.status == 303)
        #expect(quoted.field("Location") == "/trips?q=%22%3C%3E%7B")
    }

    @Test func aPrivateListIsReadWithTheCookieAndNotWithout() async throws {
        let api = try await start()
        defer { api.stop() }
        #expect(try await api.request("GET", "/trips").status == 401)
        let cookie = try await signIn(api)
        let list = try await api.request("GET", "/trips", headers: ["Cookie": cookie])
        #expect(list.status == 200)
        #expect(try list.ids == [1, 2, 3, 4, 5, 6])
        let page = try await api.request("GET", "/trips/2", headers: browser.merging(["Cookie": cookie]) { $1 })
        #expect(page.status == 200)
        #expect(page.text.contains("Vancouver"))
        // Among other cookies, in any order, and across two Cookie fields as one.
        let among = try await api.request("GET", "/favorites", headers: ["Cookie": "theme=dark; \(cookie); other=\"x y\""])
        #expect(among.status == 200)
        // The assets the sign-in page needs are anyone's.
        #expect(try await api.request("GET", "/assets/trips.js").status == 200)
        #expect(try await api.request("GET", "/assets/trips.css").status == 200)
    }

    @Test func aBrowsersPageWithoutCredentialsIsA401PageWithTheSignInForm() async throws {
        let api = try await start()
        defer { api.stop() }
        let page = try await api.request("GET", "/trips?q=kyoto", headers: browser)
        #expect(page.status == 401)
        #expect(page.field("Content-Type") == "text/html; charset=utf-8")
        #expect(page.field("WWW-Authenticate") == #"Bearer realm="trips""#)
        #expect(page.field("Content-Security-Policy") != nil)
        #expect(page.text.contains(#"<form id="sign-in-form" class="sign-in" method="post" action="/session">"#))
        #expect(page.text.contains(#"<input type="hidden" name="next" value="/trips?q=kyoto">"#))
        #expect(!page.text.contains("Kyoto"))
        // A script's read gets the problem document, as before.
        let json = try await api.request("GET", "/trips")
        #expect(json.field("Content-Type") == "application/problem+json")
    }

    @Test func theFormAndSignOutAreInThePagesLanguageAndHiddenOnEveryOtherPage() async throws {
        let api = try await start(isPrivate: false)
        defer { api.stop() }
        let polish = browser.merging(["Accept-Language": "pl"]) { $1 }
        let list = try await api.request("GET", "/trips", headers: polish)
        #expect(list.text.contains(#"<section id="sign-in" class="panel" aria-labelledby="sign-in-title" hidden>"#))
        #expect(list.text.contains(#"<h2 id="sign-in-title">Logowanie</h2>"#))
        #expect(
            list.text.contains(
                #"aria-label="Wyloguj" hidden><input type="hidden" name="next" value="/trips"><button type="submit">Wyloguj</button>"#))
        let trip = try await api.request("GET", "/trips/2", headers: browser)
        #expect(trip.text.contains(#"id="sign-in""#) && trip.text.contains(#"id="sign-out""#))
        let form = try await api.request("GET", "/session", headers: polish)
        #expect(form.text.contains("<title>Logowanie · Podróże</title>"))
        #expect(form.text.contains(#"<label>Token <input name="token""#))
        #expect(form.text.contains(#"<button type="submit">Zaloguj</button>"#))
    }

    @Test func aWrongTokenIs401AndTheFormSaysSoToABrowser() async throws {
        let api = try await start()
        defer { api.stop() }
        let script = try await api.request("POST", "/session", headers: form, body: "token=\(alice)x")
        #expect(script.status == 401)
        #expect(try script.member("member") == .string("token"))
        #expect(script.field("WWW-Authenticate") == #"Bearer realm="trips", error="invalid_token""#)
        #expect(script.field("Set-Cookie") == nil)
        #expect(!script.text.contains(alice))
        let page = try await api.request(
            "POST", "/session", headers: form.merging(browser) { $1 }, body: "token=\(alice)x&next=%2Ftrips%2F3")
        #expect(page.status == 401)
        #expect(page.field("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains(#"<p class="problem" role="alert">That token is not valid.</p>"#))
        #expect(page.text.contains(#"value="/trips/3""#))
        #expect(!page.text.contains(alice))
    }

    @Test func aChangeWithTheCookieFromTheOwnPageIsMadeAndFromAnywhereElse403() async throws {
        let api = try await start(isPrivate: false, cors: CORSPolicy(origins: ["https://app.example"]))
        defer { api.stop() }
        let cookie = try await signIn(api)
        let made = try await api.request("PUT", "/favorites/2", headers: ownPage.merging(["Cookie": cookie]) { $1 })
        #expect(made.status == 200, "\(made.text)")
        let fetchMetadataOnly = try await api.request(
            "PUT", "/favorites/3", headers: ["Cookie": cookie, "Sec-Fetch-Site": "same-origin"])
        #expect(fetchMetadataOnly.status == 200)
        for headers in [
            [:],  // says nothing of where it comes from
            ["Origin": "https://app.example"],  // an origin CORS allows: not the page's own
            ["Origin": "http://localhost", "Sec-Fetch-Site": "same-site"],
            ["Sec-Fetch-Site": "none"],
        ] {
            let refused = try await api.request("PUT", "/favorites/4", headers: headers.merging(["Cookie": cookie]) { $1 })
            #expect(refused.status == 403, "\(headers)")
            #expect(refused.field("Content-Type") == "application/problem+json")
        }
        #expect(try await api.request("GET", "/favorites").ids == [1, 2, 3, 5])
        // A bearer token needs none of that: curl sends no cookie.
        let curl = try await api.request("PUT", "/favorites/4", headers: ["Authorization": "Bearer \(alice)"])
        #expect(curl.status == 200)
    }

    @Test func aSessionExpiresAfterItsLifetimeOnTheServersClock() async throws {
        let clock = ManualClock()
        let api = try await start(clock: clock)
        defer { api.stop() }
        let cookie = try await signIn(api)
        clock.advance(by: .seconds(12 * 3600 - 1))
        #expect(try await api.request("GET", "/trips", headers: ["Cookie": cookie]).status == 200)
        clock.advance(by: .seconds(1))
        let expired = try await api.request("GET", "/trips", headers: ["Cookie": cookie])
        #expect(expired.status == 401)
        #expect(expired.field("Content-Type") == "application/problem+json")
    }

    @Test func signingOutEndsTheSessionOnTheServerToo() async throws {
        let api = try await start()
        defer { api.stop() }
        let cookie = try await signIn(api)
        let session = try await api.request("GET", "/session", headers: ["Cookie": cookie])
        #expect(session.text == #"{"signedIn":true,"name":"alice"}"#)
        let out = try await api.request("POST", "/session/end", headers: ownPage.merging(["Cookie": cookie]) { $1 })
        #expect(out.status == 204)
        #expect(out.field("Set-Cookie") == "trips-session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict")
        // A copy of the cookie kept anywhere is worth nothing now.
        #expect(try await api.request("GET", "/trips", headers: ["Cookie": cookie]).status == 401)
        #expect(try await api.request("GET", "/session", headers: ["Cookie": cookie]).text == #"{"signedIn":false}"#)
        // A form's sign-out goes back to its page; signed out already, the same.
        let again = try await api.request(
            "POST", "/session/end", headers: form.merging(ownPage) { $1 }.merging(["Cookie": cookie]) { $1 }, body: "next=%2Ftrips")
        #expect(again.status == 303)
        #expect(again.field("Location") == "/trips")
    }

    @Test func signingInAgainEndsTheOldSessionAndGivesANewId() async throws {
        let api = try await start()
        defer { api.stop() }
        let first = try await signIn(api)
        let second = try await signIn(api, headers: ownPage.merging(["Cookie": first]) { $1 })
        #expect(second != first)
        #expect(try await api.request("GET", "/trips", headers: ["Cookie": first]).status == 401)
        #expect(try await api.request("GET", "/trips", headers: ["Cookie": second]).status == 200)
    }

    @Test func aForgedTamperedOrMalformedCookieIsNoCredentialsNeverAnError() async throws {
        let api = try await start()
        defer { api.stop() }
        let cookie = try await signIn(api)
        let value = cookie.dropFirst("trips-session=".count)
        func flipped(_ offset: Int) -> String {
            var bytes = Array(value.utf8)
            bytes[offset] = bytes[offset] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
            return "trips-session=" + String(decoding: bytes, as: UTF8.self)
        }
        let uppercase = "trips-session=" + value.uppercased()
        let forged = "trips-session=" + String(repeating: "a", count: 64) + "." + String(repeating: "b", count: 64)
        for bad in [
            flipped(3), flipped(100), uppercase, forged, "trips-session=", "trips-session", "trips-session=\"\(value)\"",
            "trips-session=\(value)x", "trips-session=\(value.dropLast())",
            "trips-session=\(value.replacingOccurrences(of: ".", with: "-"))",
            "Trips-Session=\(value)", ";;;", "=", "trips-session=\(String(repeating: "é", count: 129))",
        ] {
            let answer = try await api.request("GET", "/trips", headers: ["Cookie": bad])
            #expect(answer.status == 401, "\(bad)")
        }
        // More than 8 KiB of cookies is read as none, ours among them.
        let padded = "pad=\(String(repeating: "x", count: 8192)); \(cookie)"
        #expect(try await api.request("GET", "/trips", headers: ["Cookie": padded]).status == 401)
        #expect(try await api.request("GET", "/trips", headers: ["Cookie": "a=b; \(cookie)"]).status == 200)
    }

    @Test func theOldestSessionsGiveWayPastTheCapacity() async throws {
        let api = try await start(capacity: 3)
        defer { api.stop() }
        var cookies: [String] = []
        for _ in 0..<4 { cookies.append(try await signIn(api)) }
        #expect(try await api.request("GET", "/trips", headers: ["Cookie": cookies[0]]).status == 401)
        for cookie in cookies.dropFirst() {
            #expect(try await api.request("GET", "/trips", headers: ["Cookie": cookie]).status == 200)
        }
    }

    @Test func theFormIsReadWithinItsLimits() async throws {
        let api = try await start()
        defer { api.stop() }
        let tooLarge = try await api.request("POST", "/session", headers: form, body: "token=" + String(repeating: "a", count: 8192))
        #expect(tooLarge.status == 413)
        for (body, member) in [
            ("token=" + String(repeating: "a", count: 513), "token"), ("token=a%20b", "token"), ("token=\(alice)&token=\(alice)", "token"),
            ("", "token"), ("token=\(alice)&next=%2F%2Fattacker.example", "next"), ("token=\(alice)&next=https://attacker.example", "next"),
            ("token=\(alice)&next=%2F%5Cattacker.example", "next"), ("token=\(alice)&next=trips", "next"),
        ] {
            let refused = try await api.request("POST", "/session", headers: form, body: body)
            #expect(refused.status == 422, "\(body)")
            #expect(try refused.member("member") == .string(member), "\(body)")
            #expect(refused.field("Set-Cookie") == nil)
        }
        let json = try await api.request("POST", "/session", headers: ["Content-Type": "application/json"], body: #"{"token":"\#(alice)"}"#)
        #expect(json.status == 415)
        #expect(json.field("Accept-Post") == "application/x-www-form-urlencoded")
        // A field the form does not know is skipped.
        #expect(try await api.request("POST", "/session", headers: form, body: "remember=on&token=\(alice)").status == 204)
    }

    @Test func signingInFromAnotherSitesPageIs403() async throws {
        let api = try await start()
        defer { api.stop() }
        let answer = try await api.request(
            "POST", "/session", headers: form.merging(["Origin": "https://attacker.example"]) { $1 }, body: "token=\(alice)")
        #expect(answer.status == 403)
        #expect(answer.field("Set-Cookie") == nil)
    }

    @Test func withoutTokensThereIsNothingToSignInTo() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        #expect(try await api.request("POST", "/session", headers: form, body: "token=\(alice)").status == 404)
        #expect(try await api.request("GET", "/session").text == #"{"signedIn":false}"#)
        #expect(try await api.request("POST", "/session/end").status == 204)
    }

    @Test func theSessionPageOffersTheFormOrSignOut() async throws {
        let api = try await start()
        defer { api.stop() }
        let signedOut = try await api.request("GET", "/session", headers: browser)
        #expect(signedOut.status == 200)
        #expect(signedOut.text.contains(#"action="/session""#))
        #expect(!signedOut.text.contains(#"id="sign-out""#))
        let cookie = try await signIn(api)
        let signedIn = try await api.request("GET", "/session", headers: browser.merging(["Cookie": cookie]) { $1 })
        #expect(signedIn.text.contains(#"<form id="sign-out" class="sign-out" method="post" action="/session/end" aria-label="Sign out">"#))
        #expect(signedIn.text.contains("Signed in with the token of alice."))
        #expect(!signedIn.text.contains(#"id="sign-in-form""#))
    }
}

/// The pieces under the sessions, without a server.
@Suite struct SessionPartsTests {
    @Test func sessionsAreBoundedAndExpireOnTheClock() throws {
        let clock = ManualClock()
        let sessions = try BrowserSessions(lifetime: .seconds(60), capacity: 2, clock: clock)
        let first = try sessions.begin(for: "alice")
        clock.advance(by: .seconds(30))
        let second = try sessions.begin(for: "bob")
        #expect(sessions.name(for: first[...]) == "alice")
        #expect(sessions.name(for: second[...]) == "bob")
        clock.advance(by: .seconds(30))
        #expect(sessions.name(for: first[...]) == nil)
        #expect(sessions.name(for: second[...]) == "bob")
        let third = try sessions.begin(for: "carol")
        let fourth = try sessions.begin(for: "dave")
        #expect(sessions.count == 2)
        #expect(sessions.name(for: second[...]) == nil)
        #expect([third, fourth].map { sessions.name(for: $0[...]) } == ["carol", "dave"])
    }

    @Test func signingInAndOutInTurnKeepsTheBookkeepingBounded() throws {
        let sessions = try BrowserSessions(capacity: 4, clock: ManualClock())
        for _ in 0..<1_000 { sessions.end(try sessions.begin(for: "alice")[...]) }
        #expect(sessions.count == 0)
        let kept = try (0..<4).map { _ in try sessions.begin(for: "bob") }
        #expect(kept.allSatisfy { sessions.name(for: $0[...]) == "bob" })
    }

    @Test func anotherProcesssCookieIsRefused() throws {
        let clock = ManualClock()
        let ours = try BrowserSessions(clock: clock)
        let theirs = try BrowserSessions(clock: clock)
        let cookie = try theirs.begin(for: "alice")
        #expect(ours.name(for: cookie[...]) == nil)
    }

    @Test(arguments: [
        ("a=1; trips-session=x; b=2", ["x"]), ("trips-session=x;trips-session=y", ["x", "y"]), ("trips-session = x", []),
        ("  trips-session=x  ", ["x"]), ("trips-session=", [""]), ("other=trips-session=x", []), ("trips-sessionx=1", []),
    ])
    func theCookieIsReadFromACookieString(field: String, values: [String]) throws {
        let request = try TestRequest(method: "GET", target: "/", headers: ["Cookie": field]).parsed
        #expect(SessionCookie.values(in: request).map(String.init) == values)
    }

    @Test func constantTimeEqualityComparesWholeValues() {
        #expect(ConstantTime.isEqual(Array("secret".utf8), Array("secret".utf8)))
        #expect(!ConstantTime.isEqual(Array("secret".utf8), Array("secreT".utf8)))
        #expect(!ConstantTime.isEqual(Array("secret".utf8), Array("secret!".utf8)))
        #expect(!ConstantTime.isEqual([UInt8](repeating: 0, count: 256), []))
        #expect(ConstantTime.isEqual([UInt8](), [UInt8]()))
    }

    @Test func secureRandomBytesDifferEachTime() throws {
        let (a, b) = (try SecureRandom.bytes(32), try SecureRandom.bytes(32))
        #expect(a.count == 32 && a != b)
        #expect(try SecureRandom.bytes(1000).count == 1000)
    }
}
