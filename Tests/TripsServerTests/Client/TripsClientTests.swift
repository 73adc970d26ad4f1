import Foundation
import Testing
import TripsClient
import TripsDomain
import TripsFormats

/// Every operation of `TripsClient` against a live server, on the journal and on PostgreSQL.
@Suite struct TripsClientTests {
    private let lisbon = TripDraft(
        city: "Lisbon", country: "Portugal", nights: 4, price: Decimal(string: "1234567890123456789.01")!,
        start: TripDate.parse("2027-05-01")!)

    @Test(arguments: TestStore.all) func readsTheListViewsPagesAndOneTrip(store: TestStore) async throws {
        try await ClientTestServer.with(store) { server in
            let client = TripsClient(baseURL: server.url)
            let list = try await client.list()
            #expect(list.value.map(\.id) == [1, 2, 3, 4, 5, 6])
            #expect(list.etag != nil && list.revision != nil)
            #expect(list.value[1].price == Decimal(string: "1299.99"))
            let favorites = try await client.list(TripQuery(filter: .favorites, order: TripOrder(key: .price, isDescending: true)))
            #expect(favorites.value.allSatisfy(\.isFavorite) && !favorites.value.isEmpty)
            #expect(try await client.list(TripQuery(search: "zurich")).value.map(\.id) == [6])
            #expect(try await client.list(TripQuery(country: "united states")).value.map(\.id) == [1, 4])
            var paged: [Int] = []
            for try await trip in client.trips(pageSize: 4) { paged.append(trip.id) }
            #expect(paged == [1, 2, 3, 4, 5, 6])
            let trip = try await client.trip(2)
            #expect(trip.value.city == "Vancouver" && trip.etag != nil)
            #expect(try await client.tripVersion(2).etag == trip.etag)
            #expect(try await client.listVersion().etag == list.etag)
            await #expect(throws: TripsClientError.self) { try await client.trip(42) }
        }
    }

    @Test(arguments: TestStore.all) func createsReplacesPatchesAndDeletes(store: TestStore) async throws {
        try await ClientTestServer.with(store) { server in
            let client = TripsClient(baseURL: server.url)
            let created = try await client.create(lisbon, before: 2)
            #expect(created.value.price == lisbon.price)  // 21 digits, exact
            #expect(server.order == [1, 7, 2, 3, 4, 5, 6])
            let sentence = try await client.create(sentence: "Porto, Portugal: 2 nights from May 5, 2027")
            #expect(sentence.value.city == "Porto")
            let french = try await client.create(sentence: "Nice, France : 3 nuits à partir du 5 juin 2027", language: .french)
            #expect(french.value.nights == 3)
            let several = try await client.create([lisbon, lisbon], before: 1)
            #expect(several.value.count == 2 && server.order.prefix(2) == [10, 11])
            let lines = try await client.create(sentences: [
                "Faro, Portugal: 3 nights from May 8, 2027", "Oslo, Norway: 2 nights from May 9, 2027",
            ])
            #expect(lines.value.map(\.city) == ["Faro", "Oslo"])
            var changed = created.value
            changed.notes = "Alfama"
            let replaced = try await client.replace(changed, ifMatch: created.etag)
            #expect(replaced.value.notes == "Alfama")
            let patched = try await client.patch(7, TripPatch(nights: 5, price: Decimal(string: "0.10")), ifMatch: replaced.etag)
            #expect(patched.value.nights == 5 && patched.value.notes == "Alfama" && patched.value.price == Decimal(string: "0.1"))
            try await client.delete(7, ifMatch: patched.etag)
            try await client.delete([8, 9])
            #expect(!server.order.contains(7) && !server.order.contains(8))
        }
    }

    @Test(arguments: TestStore.all) func refusalsAreTypedFromTheProblemDocument(store: TestStore) async throws {
        try await ClientTestServer.with(store) { server in
            let client = TripsClient(baseURL: server.url)
            let stale = try await client.trip(2)
            _ = try await client.patch(2, TripPatch(nights: 6), ifMatch: stale.etag)
            let error = await #expect(throws: TripsClientError.self) {
                try await client.patch(2, TripPatch(nights: 7), ifMatch: stale.etag)
            }
            guard case .preconditionFailed(let problem)? = error else { throw TestFailure("not a 412: \(String(describing: error))") }
            #expect(problem.status == 412 && !problem.detail.isEmpty)
            #expect(error?.kind == .staleIfMatch && problem.type == "/problems/stale-if-match")
            var bad = lisbon
            bad.nights = 0
            bad.city = " "
            let invalid = await #expect(throws: TripsClientError.self) { try await client.create(bad) }
            guard case .unprocessable(let rules)? = invalid else { throw TestFailure("not a 422: \(String(describing: invalid))") }
            #expect(rules.errors.map(\.member) == ["city", "nights"] && invalid?.kind == .invalidDraft)
            let unknown = await #expect(throws: TripsClientError.self) { try await client.move([42], before: 1) }
            #expect(unknown?.problem?.ids == [42] && unknown?.kind == .unknownIDs)
            let missing = await #expect(throws: TripsClientError.self) { try await client.delete(42) }
            guard case .notFound? = missing, missing?.kind == .notFound else { throw TestFailure("not a 404") }
        }
    }

    @Test(arguments: TestStore.all) func movesSortsFavoritesAndPhotos(store: TestStore) async throws {
        try await ClientTestServer.with(store) { server in
            let client = TripsClient(baseURL: server.url)
            let list = try await client.list()
            let moved = try await client.move([4, 2], before: 1, ifMatch: list.etag)
            #expect(moved.value.map(\.id) == [2, 4, 1, 3, 5, 6] && server.order == [2, 4, 1, 3, 5, 6])
            try await client.moveToEnd([2])
            #expect(server.order == [4, 1, 3, 5, 6, 2])
            let drop = try await client.makeFavorites([2, 3])
            #expect(drop.value.added == [3, 2] || drop.value.added == [2, 3])
            #expect(try await client.makeFavorites([2, 3]).value.added.isEmpty)
            let named = try await client.makeFavorites(named: ["Zurich"])
            #expect(named.value.added == [6])
            #expect(try await client.setFavorite(6, false).value.isFavorite == false)
            #expect(try await client.setFavorite(6, true).value.isFavorite)
            let sorted = try await client.sort(by: .price)
            #expect(sorted.value.map(\.price) == sorted.value.map(\.price).sorted())
            let photo = try await client.setPhoto(2, APIPhotoTests.plainPNG, type: "image/png")
            #expect(photo.value.photo?.format.mediaType.description == "image/png")
            #expect(try await client.clearPhoto(2).value.photo == nil)
        }
    }
}
