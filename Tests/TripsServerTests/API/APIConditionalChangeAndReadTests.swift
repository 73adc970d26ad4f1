import Testing

@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// `If-None-Match` on a change and `If-Match` on a read, as RFC 9110 §13.2.2 evaluates them:
/// a change whose `If-None-Match` names the current representation (or `*`, which any
/// existing resource matches) is not made, and a read whose `If-Match` names no current
/// representation is 412, not the representation. Found from outside: both were ignored.
@Suite struct APIConditionalChangeAndReadTests {
    @Test(arguments: TestStore.all) func aChangeWhoseIfNoneMatchMatchesIsNotMade(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let trip = try #require(try await api.request("GET", "/trips/2").field("ETag"))
        let list = try #require(try await api.request("GET", "/trips").field("ETag"))
        let patch = ["Content-Type": "application/merge-patch+json"]
        let refused: [(method: String, target: String, headers: [String: String], body: String)] = [
            ("DELETE", "/trips/3", ["If-None-Match": "*"], ""),
            ("PATCH", "/trips/2", patch.merging(["If-None-Match": trip]) { $1 }, #"{"nights":9}"#),
            ("PATCH", "/trips/2", patch.merging(["If-None-Match": "\"other\", W/\(trip)"]) { $1 }, #"{"nights":9}"#),
            ("PUT", "/favorites/2", ["If-None-Match": trip], ""),
            ("POST", "/trips", ["Content-Type": "text/plain", "If-None-Match": "*"], "Oslo, Norway: 2 nights from June 1, 2027"),
            ("DELETE", "/trips?ids=1,2", ["If-None-Match": list], ""),
        ]
        for (method, target, headers, body) in refused {
            let response = try await api.request(method, target, headers: headers, body: body)
            #expect(response.status == 412, "\(method) \(target) \(headers)")
            #expect(response.text.contains("If-None-Match"), "\(response.text)")
        }
        #expect(api.store.list == SampleTrips.list, "nothing changed")

        let stale = patch.merging(["If-None-Match": "\"trip-2-v999-json\""]) { $1 }
        #expect(try await api.request("PATCH", "/trips/2", headers: stale, body: #"{"nights":9}"#).status == 200)
        #expect(try await api.request("DELETE", "/trips/42", headers: ["If-None-Match": "*"]).status == 404, "no trip: * is true")
    }

    @Test func aReadWhoseIfMatchNamesNoCurrentRepresentationIs412() async throws {
        let api = try await APIServer(on: .memory)
        defer { api.stop() }
        let read = try await api.request("GET", "/trips/2")
        let trip = try #require(read.field("ETag"))
        let list = try #require(try await api.request("GET", "/trips").field("ETag"))
        for (target, tag) in [("/trips/2", trip), ("/trips", list), ("/favorites", list)] {
            #expect(try await api.request("GET", target, headers: ["If-Match": "\"nope\""]).status == 412, "\(target)")
            #expect(try await api.request("HEAD", target, headers: ["If-Match": "\"nope\""]).status == 412, "\(target)")
            #expect(try await api.request("GET", target, headers: ["If-Match": tag]).status == 200, "\(target)")
            #expect(try await api.request("GET", target, headers: ["If-Match": "*"]).status == 200, "\(target)")
            #expect(try await api.request("GET", target, headers: ["If-Match": "W/\(tag)"]).status == 412, "weak: \(target)")
        }
        guard case .object(let photo)? = try read.member("photo"), case .string(let url)? = photo["url"] else {
            throw TestFailure("no photo in \(read.text)")
        }
        let part = try await api.request("GET", url, headers: ["If-Match": "\"x\"", "Range": "bytes=0-1"])
        #expect(part.status == 412)
        let whole = try await api.request("GET", url)
        let current = try #require(whole.field("ETag"))
        #expect(try await api.request("GET", url, headers: ["If-Match": current, "Range": "bytes=0-1"]).status == 206)
    }
}
