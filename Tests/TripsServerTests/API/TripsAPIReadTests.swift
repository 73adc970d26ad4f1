import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

@Suite struct APIReadTests {
    @Test(arguments: TestStore.all) func theListComesAsJSONInStoredOrder(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request("GET", "/trips")
        #expect(response.status == 200)
        #expect(response.field("Content-Type") == "application/json")
        #expect(response.field("Vary") == "Accept, Accept-Encoding")
        #expect(response.field("ETag") != nil)
        #expect(try response.ids == [1, 2, 3, 4, 5, 6])
    }

    @Test(arguments: TestStore.all) func theListComesAsSentencesForTextClients(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request("GET", "/trips", headers: ["Accept": "text/plain"])
        #expect(response.field("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.text.split(separator: "\n").count == 6)
        #expect(response.text.hasPrefix("Seattle, United States: 4 nights from January 12, 2027\n"))
    }

    @Test(arguments: TestStore.all) func aTripComesAsJSONOrAsASentence(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let json = try await api.request("GET", "/trips/2")
        #expect(json.status == 200)
        #expect(try json.member("city") == .string("Vancouver"))
        #expect(try json.member("price") == .number("1299.99"))
        let text = try await api.request("GET", "/trips/2", headers: ["Accept": "text/plain"])
        #expect(text.status == 200)
        #expect(text.text == "Vancouver, Canada: 3 nights from March 5, 2027\n")
        #expect(text.field("Vary") == "Accept, Accept-Encoding")
        #expect(json.field("ETag") != text.field("ETag"))
    }

    @Test(arguments: TestStore.all) func aTieInAcceptGoesToJSONAndNothingAcceptableIs406(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let tie = try await api.request("GET", "/trips/2", headers: ["Accept": "text/plain, application/json"])
        #expect(tie.field("Content-Type") == "application/json")
        let preferText = try await api.request("GET", "/trips/2", headers: ["Accept": "application/json;q=0.5, text/*"])
        #expect(preferText.field("Content-Type") == "text/plain; charset=utf-8")
        let refused = try await api.request("GET", "/trips/2", headers: ["Accept": "image/png"])
        #expect(refused.status == 406)
        #expect(refused.field("Content-Type") == "application/problem+json")
        #expect(try refused.member("available") == .array([.string("application/json"), .string("text/plain"), .string("text/html")]))
        let malformed = try await api.request("GET", "/trips/2", headers: ["Accept": "text/plain;q=5"])
        #expect(malformed.status == 200 && malformed.field("Content-Type") == "application/json")
    }

    @Test(arguments: TestStore.all) func anErrorFollowsAStatedJSONPreference(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        for accept in ["application/json, text/plain;q=0.5", "application/*, text/plain;q=0.5", "application/problem+json, text/*;q=0.1"] {
            let missing = try await api.request("GET", "/trips/42", headers: ["Accept": accept])
            #expect(missing.status == 404)
            #expect(missing.field("Content-Type") == "application/problem+json", "Accept: \(accept)")
        }
        let text = try await api.request("GET", "/trips/42", headers: ["Accept": "application/json;q=0.5, text/plain"])
        #expect(text.field("Content-Type") == "text/plain; charset=utf-8")
    }

    @Test(arguments: TestStore.all) func aMalformedAcceptElementDoesNotHideTheValidOnes(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let refused = try await api.request("GET", "/trips/2", headers: ["Accept": "text/plain;q=0.0001, application/json;q=0"])
        #expect(refused.status == 406)
        let text = try await api.request("GET", "/trips/2", headers: ["Accept": "*/plain, text/plain"])
        #expect(text.field("Content-Type") == "text/plain; charset=utf-8")
    }

    @Test func headSendsGetsHeadersWithoutContent() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let get = try await api.request("GET", "/trips/2")
        let head = try await api.request("HEAD", "/trips/2")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.field("Content-Length") == get.field("Content-Length"))
        #expect(head.field("ETag") == get.field("ETag"))
    }

    @Test(arguments: [
        ("/trips?filter=favorites", [1, 5]),
        ("/trips?filter=all", [1, 2, 3, 4, 5, 6]),
        ("/trips?country=united%20states", [1, 4]),
        ("/trips?q=zurich", [6]),
        ("/trips?q=Z%C3%BCr", [6]),
        ("/trips?sort=-price", [5, 3, 4, 1, 2, 6]),
        ("/trips?sort=price&filter=favorites", [1, 5]),
        ("/trips?country=United+States&q=high", [4]),
        ("/favorites", [1, 5]),
    ])
    func viewsFilterSearchAndSort(target: String, expected: [Int]) async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let response = try await api.request("GET", target)
        #expect(response.status == 200)
        #expect(try response.ids == expected)
        #expect(api.order == [1, 2, 3, 4, 5, 6])
    }

    @Test(arguments: ["/trips?filter=some", "/trips?sort=name", "/trips?country=", "/trips?colour=red", "/trips?q=a&q=b"])
    func badViewParametersAre400(target: String) async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let response = try await api.request("GET", target)
        #expect(response.status == 400)
        #expect(response.field("Content-Type") == "application/problem+json")
    }

    @Test(arguments: TestStore.all) func unknownTripsAndPathsAre404AndSpeakTextWhenAsked(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        #expect(try await api.request("GET", "/trips/99").status == 404)
        #expect(try await api.request("GET", "/trips/abc").status == 404)
        #expect(try await api.request("GET", "/nowhere").status == 404)
        let text = try await api.request("GET", "/trips/99", headers: ["Accept": "text/plain"])
        #expect(text.field("Content-Type") == "text/plain; charset=utf-8")
        #expect(text.text == "404 Not Found: There is nothing at /trips/99.\n")
    }

    @Test(arguments: TestStore.all) func aWrongMethodIs405WithAllowAndOptionsSaysWhatIsAllowed(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let wrong = try await api.request("PUT", "/trips", body: "")
        #expect(wrong.status == 405)
        #expect(wrong.field("Allow") == "GET, HEAD, POST, PATCH, DELETE, OPTIONS")
        let options = try await api.request("OPTIONS", "/trips/2")
        #expect(options.status == 204)
        #expect(options.field("Allow") == "GET, HEAD, PUT, PATCH, DELETE, OPTIONS")
        #expect(options.field("Accept-Patch") == "application/merge-patch+json, application/json")
        let server = try await api.request("OPTIONS", "*")
        #expect(server.status == 204)
        #expect(server.field("Allow") == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
    }

    @Test(arguments: TestStore.all) func headOnListsSendsTheirHeadersWithoutContent(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        for path in ["/trips", "/favorites", "/trips?filter=favorites"] {
            let get = try await api.request("GET", path)
            let head = try await api.request("HEAD", path)
            #expect(head.status == 200 && head.body.isEmpty, "\(path)")
            #expect(head.field("Content-Length") == get.field("Content-Length"), "\(path)")
            #expect(head.field("ETag") == get.field("ETag"), "\(path)")
        }
    }

    @Test(arguments: TestStore.all) func healthAndTheSpecAreServed(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let health = try await api.request("GET", "/health")
        #expect(health.status == 200)
        #expect(try health.member("status") == .string("ok"))
        let spec = try await api.request("GET", "/openapi.yaml")
        #expect(spec.status == 200)
        #expect(spec.field("Content-Type") == "application/yaml")
        #expect(spec.body == OpenAPISpec.document)
    }
}

@Suite struct APIConditionalRequestTests {
    @Test(arguments: TestStore.all) func ifNoneMatchGives304UntilTheTripChanges(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let first = try await api.request("GET", "/trips/2")
        let etag = try #require(first.field("ETag"))
        let again = try await api.request("GET", "/trips/2", headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.field("ETag") == etag)
        #expect(try await api.json("PATCH", "/trips/2", #"{"nights": 4}"#).status == 200)
        let changed = try await api.request("GET", "/trips/2", headers: ["If-None-Match": etag])
        #expect(changed.status == 200)
        #expect(changed.field("ETag") != etag)
    }

    @Test(arguments: TestStore.all) func theListTagChangesWithOrderAndWithAnyTrip(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let before = try #require(try await api.request("GET", "/trips").field("ETag"))
        #expect(try await api.request("GET", "/trips", headers: ["If-None-Match": before]).status == 304)
        _ = try await api.json("POST", "/trips/reorder", #"{"sources": [2], "destination": {"before": 1}}"#)
        let reordered = try #require(try await api.request("GET", "/trips").field("ETag"))
        #expect(reordered != before)
        _ = try await api.request("PUT", "/favorites/3")
        #expect(try await api.request("GET", "/trips").field("ETag") != reordered)
    }

    @Test(arguments: TestStore.all) func aStaleIfMatchIs412AndChangesNothing(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let etag = try #require(try await api.request("GET", "/trips/2").field("ETag"))
        #expect(try await api.json("PATCH", "/trips/2", #"{"nights": 4}"#).status == 200)
        let before = api.store.list
        let stale = try await api.json("PATCH", "/trips/2", #"{"nights": 9}"#, headers: ["If-Match": etag])
        #expect(stale.status == 412)
        #expect(try await api.request("DELETE", "/trips/2", headers: ["If-Match": etag]).status == 412)
        #expect(try await api.request("PUT", "/favorites/2", headers: ["If-Match": etag]).status == 412)
        #expect(api.store.list == before)
    }

    @Test(arguments: TestStore.all) func ifMatchTakesTheTagOfAnyCurrentRepresentation(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let textTag = try #require(try await api.request("GET", "/trips/2", headers: ["Accept": "text/plain"]).field("ETag"))
        let patched = try await api.json("PATCH", "/trips/2", #"{"nights": 4}"#, headers: ["If-Match": textTag])
        #expect(patched.status == 200)
        #expect(try await api.json("PATCH", "/trips/2", #"{"nights": 5}"#, headers: ["If-Match": "*"]).status == 200)
    }

    @Test(arguments: TestStore.all) func aDragOnAStaleListIsRefused(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let listTag = try #require(try await api.request("GET", "/trips").field("ETag"))
        _ = try await api.request("DELETE", "/trips/6")
        let reorder = try await api.json(
            "POST", "/trips/reorder", #"{"sources": [3], "destination": "end"}"#, headers: ["If-Match": listTag])
        #expect(reorder.status == 412)
        let sort = try await api.json("POST", "/trips/sort", #"{"by": "price"}"#, headers: ["If-Match": listTag])
        #expect(sort.status == 412)
        let drop = try await api.json("POST", "/favorites", "[3]", headers: ["If-Match": listTag])
        #expect(drop.status == 412)
        #expect(api.order == [1, 2, 3, 4, 5])
        let current = try #require(try await api.request("GET", "/trips").field("ETag"))
        let fresh = try await api.json("POST", "/trips/reorder", #"{"sources": [3], "destination": "end"}"#, headers: ["If-Match": current])
        #expect(fresh.status == 200)
    }

    @Test(arguments: TestStore.all) func aMalformedIfMatchMatchesNothingAndIfNoneMatchLetsTheRequestThrough(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        #expect(try await api.json("PATCH", "/trips/2", #"{"nights": 4}"#, headers: ["If-Match": "nope"]).status == 412)
        #expect(try await api.request("GET", "/trips/2", headers: ["If-None-Match": "0"]).status == 200)
        #expect(api.store.list == SampleTrips.list)
    }
}
