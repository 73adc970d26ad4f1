import Foundation
import Testing

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

private let token = "alice-0123456789abcdef"
private let bearer = ["Authorization": "Bearer \(token)"]
private let browser = ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8"]
private let text = ["Accept": "text/plain"]

/// What reads of the list and of a trip tell caches (`ReadCaching`): `no-cache`, `private`
/// when the answer is for whoever sent credentials, and `Vary` naming them when the server
/// has tokens. Over a live socket.
@Suite struct APICachingTests {
    private func start(tokens: Bool, isPrivate: Bool = false) async throws -> APIServer {
        let access = tokens ? AccessPolicy(tokens: AccessTokens([(name: "alice", token: token)]), isPrivate: isPrivate) : nil
        return try await APIServer(mode: .live, access: access)
    }

    /// Every read of the list and of a trip: JSON, text and the page, whole and paged.
    private static let reads: [(target: String, headers: [String: String])] = [
        ("/trips", [:]), ("/trips", text), ("/trips", browser), ("/trips?limit=2", [:]), ("/trips?country=United%20States", [:]),
        ("/favorites", [:]), ("/trips/2", [:]), ("/trips/2", text), ("/trips/2", browser),
    ]

    @Test func withoutTokensEveryReadSaysNoCacheAndVariesOnNoCredentials() async throws {
        let api = try await start(tokens: false)
        defer { api.stop() }
        for (target, headers) in Self.reads {
            // A bearer token means nothing to a server without tokens: the answer is everyone's.
            for headers in [headers, headers.merging(bearer) { $1 }] {
                let answer = try await api.request("GET", target, headers: headers)
                #expect(answer.status == 200, "\(target)")
                #expect(answer.field("Cache-Control") == "no-cache", "\(target)")
                #expect(answer.field("Vary")?.contains("Authorization") == false, "\(target)")
                let etag = try #require(answer.field("ETag"))
                let revalidated = try await api.request("GET", target, headers: headers.merging(["If-None-Match": etag]) { $1 })
                #expect(revalidated.status == 304, "\(target)")
                #expect(revalidated.field("Cache-Control") == "no-cache", "\(target)")
                #expect(revalidated.field("Vary") == answer.field("Vary"), "\(target)")
            }
        }
    }

    @Test func underPrivateEveryReadIsPrivateAndVariesOnTheCredentials() async throws {
        let api = try await start(tokens: true, isPrivate: true)
        defer { api.stop() }
        for (target, headers) in Self.reads {
            let answer = try await api.request("GET", target, headers: headers.merging(bearer) { $1 })
            #expect(answer.status == 200, "\(target)")
            #expect(answer.field("Cache-Control") == "private, no-cache", "\(target)")
            #expect(answer.field("Vary")?.contains("Authorization, Cookie") == true, "\(target): \(answer.field("Vary") ?? "")")
            let etag = try #require(answer.field("ETag"))
            let revalidated = try await api.request(
                "GET", target, headers: headers.merging(bearer) { $1 }.merging(["If-None-Match": etag]) { $1 })
            #expect(revalidated.status == 304, "\(target)")
            #expect(revalidated.field("Cache-Control") == "private, no-cache", "\(target)")
            #expect(revalidated.field("Vary") == answer.field("Vary"), "\(target)")
        }
    }

    /// The cached answers of the list and of a trip are shared by every client: a private one
    /// is filed apart, so neither kind of client ever gets the other's `Cache-Control`.
    @Test func withTokensACredentialedReadIsPrivateAndAnAnonymousOneIsNotWhateverTheCacheHolds() async throws {
        let api = try await start(tokens: true)
        defer { api.stop() }
        let signIn = try await api.request(
            "POST", "/session", headers: ["Content-Type": "application/x-www-form-urlencoded", "Origin": "http://localhost"],
            body: "token=\(token)")
        let cookie = try #require(signIn.field("Set-Cookie")).prefix { $0 != ";" }
        let credentials = [bearer, ["Cookie": "theme=dark; \(cookie)"]]
        for (target, headers) in Self.reads {
            for round in 0..<2 {
                let anonymous = try await api.request("GET", target, headers: headers)
                #expect(anonymous.field("Cache-Control") == "no-cache", "\(target), round \(round)")
                #expect(anonymous.field("Vary")?.contains("Authorization, Cookie") == true, "\(target)")
                for credential in credentials {
                    let signedIn = try await api.request("GET", target, headers: headers.merging(credential) { $1 })
                    #expect(signedIn.field("Cache-Control") == "private, no-cache", "\(target), round \(round), \(credential.keys)")
                    #expect(signedIn.field("Vary") == anonymous.field("Vary"), "\(target)")
                }
            }
        }
        // Another cookie is no credential.
        let other = try await api.request("GET", "/trips/2", headers: ["Cookie": "theme=dark"])
        #expect(other.field("Cache-Control") == "no-cache")
    }

    @Test func assetsAndPhotosKeepTheirOwnCaching() async throws {
        let api = try await start(tokens: true, isPrivate: true)
        defer { api.stop() }
        let script = try await api.request("GET", "/assets/trips.js")
        #expect(script.field("Cache-Control") == "no-cache")
        #expect(script.field("Vary")?.contains("Authorization") != true)
        let trip = try await api.request("GET", "/trips/2", headers: bearer)
        guard case .object(let photo)? = try trip.member("photo"), case .string(let url)? = photo["url"] else {
            throw TestFailure("trip 2 has no photo")
        }
        let image = try await api.request("GET", url, headers: bearer)
        #expect(image.field("Cache-Control") == TripsAPI.photoCacheControl)
    }
}
