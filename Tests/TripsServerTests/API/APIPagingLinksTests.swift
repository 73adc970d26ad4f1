import Foundation
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

private let serviceDescription = #"</openapi.yaml>; rel="service-desc""#
private let exactCount = ["Prefer": "count=exact"]

/// The links a paged read carries (`rel="next"`, `rel="first"`), the total `Prefer:
/// count=exact` asks for, and the API's description linked from `/` and the list (RFC 8631).
/// Over a live socket.
@Suite struct APIPagingLinksTests {
    @Test func aPagedReadLinksTheFirstPageAndTheNextWhileMoreFollow() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let ids = api.order
        let first = try await api.request("GET", "/trips?limit=2&sort=start")
        let startOrder = try await api.request("GET", "/trips?sort=start").ids
        #expect(try first.ids == Array(startOrder.prefix(2)))
        #expect(
            first.field("Link")
                == #"</trips?limit=2&sort=start&after=\#(startOrder[1])>; rel="next", </trips?limit=2&sort=start>; rel="first", "#
                + serviceDescription)
        // The last page: no next, the first still linked, `after` left out of it.
        let last = try await api.request("GET", "/trips?after=\(ids[ids.count - 2])&limit=5")
        #expect(try last.ids == [ids[ids.count - 1]])
        #expect(last.field("Link") == #"</trips?limit=5>; rel="first", "# + serviceDescription)
        // A view other than the list: its own links, no description.
        let favorites = try await api.request("GET", "/favorites?limit=1")
        #expect(favorites.field("Link")?.contains(#"</favorites?limit=1>; rel="first""#) == true)
        #expect(favorites.field("Link")?.contains("service-desc") == false)
        #expect(favorites.field("Vary")?.contains("Prefer") == true)
    }

    @Test func preferCountExactAddsTheViewsTotalToAPagedRead() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let totals = api.store.list.totals
        let plain = try await api.request("GET", "/trips?limit=1")
        #expect(plain.field("Trips-Total") == nil && plain.field("Preference-Applied") == nil)
        let counted = try await api.request("GET", "/trips?limit=1", headers: exactCount)
        #expect(counted.field("Trips-Total") == String(totals.trips))
        #expect(counted.field("Preference-Applied") == "count=exact")
        #expect(counted.body == plain.body && counted.field("ETag") == plain.field("ETag"))
        // Other preferences beside it, any case, parameters and spaces: still counted.
        for prefer in ["respond-async, COUNT=Exact", "wait=5,count = \"exact\";x=1", "handling=lenient"] {
            let answer = try await api.request("GET", "/trips?limit=1", headers: ["Prefer": prefer])
            let expected = prefer == "handling=lenient" ? nil : String(totals.trips)
            #expect(answer.field("Trips-Total") == expected, "\(prefer)")
        }
        // Unknown values and other counts are ignored.
        for prefer in ["count=estimated", "count", "exact"] {
            let answer = try await api.request("GET", "/trips?limit=1", headers: ["Prefer": prefer])
            #expect(answer.field("Trips-Total") == nil && answer.field("Preference-Applied") == nil, "\(prefer)")
        }
        // A filtered view counts its own trips; so do the favorites, and a page of the page.
        let unitedStates = try await api.request("GET", "/trips?country=United%20States").ids
        let filtered = try await api.request("GET", "/trips?country=United%20States&limit=1", headers: exactCount)
        #expect(filtered.field("Trips-Total") == String(unitedStates.count))
        let favorites = try await api.request("GET", "/favorites?limit=1", headers: exactCount)
        #expect(favorites.field("Trips-Total") == String(totals.favorites))
        let page = try await api.request(
            "GET", "/trips?limit=1", headers: exactCount.merging(["Accept": "text/html"]) { $1 })
        #expect(page.field("Trips-Total") == String(totals.trips))
        // Not a paged read: nothing changes.
        let whole = try await api.request("GET", "/trips", headers: exactCount)
        #expect(whole.field("Trips-Total") == nil && whole.field("Preference-Applied") == nil)
        #expect(whole.field("Vary")?.contains("Prefer") == false)
    }

    /// A view's answer is kept for its revision (`RepresentationCache.view`): every read of it
    /// after a change, the deleting of a trip it shows, a favorite made, sees the change.
    @Test func aViewKeptForItsRevisionShowsEachChange() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let ids = api.order
        let before = try await api.request("GET", "/trips?limit=2")
        #expect(try before.ids == Array(ids.prefix(2)))
        #expect(try await api.request("GET", "/trips?limit=2").body == before.body)
        #expect(try await api.request("DELETE", "/trips/\(ids[0])").status == 204)
        let after = try await api.request("GET", "/trips?limit=2")
        #expect(try after.ids == Array(ids.dropFirst().prefix(2)))
        #expect(after.field("ETag") != before.field("ETag"))
        let favorites = try await api.request("GET", "/favorites?limit=100").ids
        let other = try #require(ids.dropFirst().first { !favorites.contains($0) })
        #expect(try await api.request("PUT", "/favorites/\(other)").status == 200)
        #expect(try await api.request("GET", "/favorites?limit=100").ids.contains(other))
    }

    @Test func theRootAndTheListLinkTheServiceDescription() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let root = try await api.request("GET", "/")
        #expect(root.status == 303 && root.field("Link") == serviceDescription)
        for headers in [[:], ["Accept": "text/html"], ["Accept-Encoding": "gzip"], ["Accept": "text/plain"]] {
            for method in ["GET", "HEAD"] {
                let list = try await api.request(method, "/trips", headers: headers)
                #expect(list.field("Link") == serviceDescription, "\(method) \(headers)")
            }
        }
        let view = try await api.request("GET", "/trips?sort=price")
        #expect(view.field("Link") == serviceDescription)
        #expect(try await api.request("GET", "/trips/2").field("Link") == nil)
    }
}
