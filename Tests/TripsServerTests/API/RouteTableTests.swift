import Foundation
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer

/// `TripsAPI.routes`: how paths match templates, and what each path allows. (That the table
/// and openapi.yaml list the same operations and bodies: `OpenAPIDriftTests`.)
@Suite struct RouteTableTests {
    @Test(arguments: [
        ("/trips", "/trips" as String?, nil as Int?), ("/trips/reorder", "/trips/reorder", nil), ("/trips/sort", "/trips/sort", nil),
        ("/trips/changes", "/trips/changes", nil), ("/trips/2", "/trips/{id}", 2), ("/favorites", "/favorites", nil),
        ("/favorites/12", "/favorites/{id}", 12), ("/health", "/health", nil), ("/openapi.yaml", "/openapi.yaml", nil),
        ("/trips/0", nil, nil), ("/trips/02", nil, nil), ("/trips/-1", nil, nil), ("/trips/abc", nil, nil), ("/trips/", nil, nil),
        ("/trips/2/x", nil, nil), ("/", "/", nil), ("/assets/trips.js", "/assets/trips.js", nil), ("/assets/x.js", nil, nil),
        ("", nil, nil), ("/trips/99999999999999999999999", nil, nil), ("/trips/9223372036854775807", "/trips/{id}", Int.max),
        ("//trips", nil, nil), ("//", nil, nil), ("/trips//", nil, nil), ("/favorites/2/", nil, nil), ("/Trips", nil, nil),
        ("/trips/2/photo", "/trips/{id}/photo", 2), ("/trips/0/photo", nil, nil), ("/photos/2", nil, nil),
    ])
    func pathsMatchTemplates(path: String, template: String?, id: Int?) {
        let match = TripsAPI.routes.match(.get, path)
        #expect(match?.resource.template == template)
        #expect(match?.argument == id.map(RouteTable.Argument.tripID))
    }

    /// What `Allow`, `Accept-Post` and `Accept-Patch` said for every path when each was
    /// written by hand: the table must keep saying it.
    @Test(arguments: [
        ("/trips", "GET, HEAD, POST, PATCH, DELETE, OPTIONS", "application/json, text/plain", "application/json"),
        ("/trips/changes", "GET, HEAD, OPTIONS", "", ""),
        ("/trips/reorder", "POST, OPTIONS", "application/json", ""),
        ("/trips/sort", "POST, OPTIONS", "application/json", ""),
        ("/trips/{id}", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS", "", "application/merge-patch+json, application/json"),
        ("/favorites", "GET, HEAD, PATCH, POST, OPTIONS", "application/json, text/plain", "application/json, text/plain"),
        ("/favorites/{id}", "PUT, DELETE, OPTIONS", "", ""),
        ("/trips/{id}/photo", "GET, HEAD, PUT, DELETE, OPTIONS", "", ""), ("/photos/{photo}", "GET, HEAD, OPTIONS", "", ""),
        ("/health", "GET, HEAD, OPTIONS", "", ""), ("/livez", "GET, HEAD, OPTIONS", "", ""),
        ("/readyz", "GET, HEAD, OPTIONS", "", ""), ("/metrics", "GET, HEAD, OPTIONS", "", ""),
        ("/openapi.yaml", "GET, HEAD, OPTIONS", "", ""), ("/", "GET, HEAD, OPTIONS", "", ""),
        ("/assets/trips.css", "GET, HEAD, OPTIONS", "", ""), ("/assets/trips.js", "GET, HEAD, OPTIONS", "", ""),
        ("/assets/trips.svg", "GET, HEAD, OPTIONS", "", ""), ("/assets/words.js", "GET, HEAD, OPTIONS", "", ""),
        ("/session", "GET, HEAD, POST, OPTIONS", "application/x-www-form-urlencoded", ""),
        ("/session/end", "POST, OPTIONS", "application/x-www-form-urlencoded", ""),
        ("/problems/{kind}", "GET, HEAD, OPTIONS", "", ""),
    ])
    func everyPathAllowsAndAcceptsWhatItAlwaysHas(template: String, allow: String, acceptPost: String, acceptPatch: String) throws {
        let resource = try #require(TripsAPI.routes.resources.first { $0.template == template })
        #expect(resource.allowedMethods.map(\.rawValue).joined(separator: ", ") == allow)
        #expect(resource.bodyTypes(for: .post).map(\.description).joined(separator: ", ") == acceptPost)
        #expect(resource.bodyTypes(for: .patch).map(\.description).joined(separator: ", ") == acceptPatch)
    }

    /// The metrics count a request under its resource's label: the template, in the order
    /// `/metrics` has always listed them, then "other".
    @Test func eachPathIsCountedUnderItsTemplate() throws {
        #expect(
            TripsAPI.routes.labels == [
                "/trips", "/trips/changes", "/trips/reorder", "/trips/sort", "/trips/{id}", "/trips/{id}/photo", "/photos/{photo}",
                "/favorites", "/favorites/{id}", "/health",
                "/livez", "/readyz", "/metrics", "/openapi.yaml", "/", "/assets/words.js", "/assets/trips.css", "/assets/trips.js",
                "/assets/trips.svg", "/session", "/session/end", "/problems/{kind}", "other",
            ])
        for resource in TripsAPI.routes.resources {
            let path = resource.template.replacingOccurrences(of: "{id}", with: "2")
                .replacingOccurrences(of: "{photo}", with: String(repeating: "a", count: 64) + ".webp")
                .replacingOccurrences(of: "{kind}", with: "not-found")
            let match = try #require(TripsAPI.routes.match(.get, path))
            #expect(TripsAPI.routes.labels[match.resource.label] == resource.template)
        }
    }

    /// `HEAD` is answered as `GET`; `OPTIONS` and methods a path does not answer reach no route.
    @Test func aMatchCarriesTheRouteForItsMethod() throws {
        #expect(TripsAPI.routes.match(.head, "/trips/2")?.route?.method == .get)
        #expect(TripsAPI.routes.match(.put, "/trips/2")?.route?.method == .put)
        #expect(try #require(TripsAPI.routes.match(.post, "/trips/2")).route == nil)
        #expect(try #require(TripsAPI.routes.match(.options, "/trips")).route == nil)
        #expect(try #require(TripsAPI.routes.match(.head, "/trips/reorder")).route == nil)
        #expect(try #require(TripsAPI.routes.match(.query, "/trips")).route == nil)
    }

    /// Only reads of the list wait for `Trips-Revision`, and only the probes, the assets and
    /// signing in and out need no credentials.
    @Test func traitsSitOnTheRoutesTheyAlwaysApplied() {
        let routes = TripsAPI.routes.resources.flatMap { resource in resource.routes.map { ("\($0.method) \(resource.template)", $0) } }
        #expect(routes.filter { $0.1.traits.contains(.showsTheList) }.map(\.0) == ["GET /trips", "GET /trips/{id}", "GET /favorites"])
        #expect(
            routes.filter { $0.1.traits.contains(.needsNoCredentials) }.map(\.0) == [
                "GET /health", "GET /livez", "GET /readyz", "GET /assets/words.js", "GET /assets/trips.css", "GET /assets/trips.js",
                "GET /assets/trips.svg", "GET /session", "POST /session", "POST /session/end", "GET /problems/{kind}",
            ])
    }
}

/// `/photos/{photo}`: only a digest and a known extension name a photo.
@Suite struct PhotoRouteTests {
    static let digest = String(repeating: "0123456789abcdef", count: 4)

    @Test(arguments: ["\(digest).jpg", "\(digest).png", "\(digest).webp"])
    func aPhotoNameRoutesWithItsFormat(name: String) throws {
        let match = try #require(TripsAPI.routes.match(.get, "/photos/\(name)"))
        guard case .photoName(let photo)? = match.argument else {
            Issue.record("no photo name in \(String(describing: match.argument))")
            return
        }
        #expect(photo.digest == Self.digest)
        #expect(photo.format.fileExtension == String(name.split(separator: ".")[1]))
    }

    @Test(arguments: [
        "\(digest).gif", "\(digest).JPG", "\(digest.uppercased()).jpg", "\(digest.dropLast()).jpg", "\(digest)a.jpg", "\(digest)",
        "\(digest).", ".jpg", "\(digest.dropLast())g.jpg", "\(digest).jpg.jpg",
    ])
    func anythingElseIsNoPath(name: String) {
        #expect(TripsAPI.routes.match(.get, "/photos/\(name)") == nil)
    }
}
