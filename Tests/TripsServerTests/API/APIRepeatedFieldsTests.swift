import Testing

@testable import TripsServer
@testable import TripsStore

/// A request that repeats a field taking one value (`Authorization`, `Origin`,
/// `Sec-Fetch-Site`, `Idempotency-Key`, `Content-Type`) is 400 and changes nothing,
/// in whichever order: the first had won, so a good token then a bad one passed and the other
/// order did not, and a proxy that heeds the last would disagree (found from outside). Each
/// pair's names differ in case: one field to HTTP, two lines on the wire.
@Suite struct APIRepeatedFieldsTests {
    @Test func aRepeatedSingleValueFieldIs400AndChangesNothing() async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let sentence = "Oslo, Norway: 2 nights from June 1, 2027"
        let pairs: [(String, String, String)] = [
            ("Origin", "http://localhost", "http://evil.example"), ("Sec-Fetch-Site", "same-origin", "cross-site"),
            ("Idempotency-Key", "k1", "k2"), ("Content-Type", "text/plain", "application/json"),
        ]
        for (name, first, second) in pairs {
            var headers = ["Content-Type": "text/plain"]
            headers[name] = first
            headers[name.lowercased()] = second
            let response = try await api.request("POST", "/trips", headers: headers, body: sentence)
            #expect(response.status == 400, "\(name)")
            #expect(response.text.contains("more than one \(name) field"), "\(response.text)")
        }
        #expect(api.store.list == SampleTrips.list)
        let once = try await api.request(
            "POST", "/trips", headers: ["Content-Type": "text/plain", "Idempotency-Key": "k1"], body: sentence)
        #expect(once.status == 201)
    }

    /// On a server with tokens, a good token and a bad one are 400 in either order (the
    /// first had won: 200 one way, 401 the other).
    @Test func twoTokensAre400InEitherOrder() async throws {
        let token = "alice-0123456789abcdef"
        let access = AccessPolicy(tokens: AccessTokens([(name: "alice", token: token)]), isPrivate: false)
        let api = try await APIServer(access: access)
        defer { api.stop() }
        for (first, second) in [("Bearer \(token)", "Bearer nope-0123456789abcdef"), ("Bearer nope-0123456789abcdef", "Bearer \(token)")] {
            let response = try await api.request("DELETE", "/trips/3", headers: ["Authorization": first, "authorization": second])
            #expect(response.status == 400)
        }
        #expect(try await api.request("DELETE", "/trips/3", headers: ["Authorization": "Bearer \(token)"]).status == 204)
    }
}
