import Foundation
import Testing
import TripsClient
import TripsDomain

/// The lesson's `TripStore` over a live server: optimistic, conditional, kept in sync.
@Suite struct ClientTripStoreTests {
    @MainActor private func store(_ server: ClientTestServer) async throws -> TripStore {
        let store = TripStore(client: TripsClient(baseURL: server.url, retry: RetryPolicy { _ in await Task.yield() }))
        try await store.start()
        return store
    }

    /// Waits (bounded) until `store` has caught up with the server's revision now.
    @MainActor private func caughtUp(_ stores: TripStore..., with server: ClientTestServer) async throws {
        let revision = try await TripsClient(baseURL: server.url).listVersion().revision ?? 0
        for store in stores {
            await store.sent()
            try await within(seconds: 10) { @MainActor in await store.waitUntil(revision: revision) }
        }
    }

    @Test(arguments: TestStore.all) @MainActor func eachChangeShowsAtOnceAndReachesTheServer(kind: TestStore) async throws {
        try await ClientTestServer.with(kind) { @MainActor server in
            let store = try await store(server)
            defer { store.stop() }
            store.move([4], before: 1)
            #expect(store.trips.map(\.id) == [4, 1, 2, 3, 5, 6])  // before any answer
            let added = store.makeFavorites(store.trips.filter { [2, 5].contains($0.id) })
            #expect(added == [2])
            store.toggleFavorite(store.trips[1])
            store.add(
                TripDraft(city: "Oslo", country: "Norway", nights: 2, price: 640.5, start: Date(timeIntervalSince1970: 1_800_000_000)),
                before: 2)
            #expect(store.trips.contains { $0.id < 0 && $0.city == "Oslo" })
            var vancouver = try #require(store.trips.first { $0.id == 2 })
            vancouver.notes = "Granville Island"
            store.update(vancouver)
            store.delete([try #require(store.trips.first { $0.id == 3 })])
            try await caughtUp(store, with: server)
            #expect(store.notice == nil)
            #expect(store.trips.map(\.id) == server.order)
            #expect(server.order == [4, 1, 7, 2, 5, 6])
            let server2 = try await TripsClient(baseURL: server.url).list().value
            #expect(store.trips == server2)
            #expect(store.trips.first { $0.id == 1 }?.isFavorite == false)
        }
    }

    @Test(arguments: TestStore.all) @MainActor func anotherClientsChangeAppears(kind: TestStore) async throws {
        try await ClientTestServer.with(kind) { @MainActor server in
            let store = try await store(server)
            defer { store.stop() }
            _ = try await TripsClient(baseURL: server.url).create(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027", before: 1)
            try await caughtUp(store, with: server)
            #expect(store.trips.first?.city == "Lisbon")
        }
    }

    @Test(arguments: TestStore.all) @MainActor func twoStoresConvergeAfterConcurrentMoves(kind: TestStore) async throws {
        try await ClientTestServer.with(kind) { @MainActor server in
            let first = try await store(server)
            let second = try await store(server)
            defer {
                first.stop()
                second.stop()
            }
            first.move([6], before: 1)
            second.move([1], before: nil)
            first.move([2, 3], before: nil)
            second.move([5], before: 2)
            try await caughtUp(first, second, with: server)
            try await caughtUp(first, second, with: server)
            #expect(first.trips.map(\.id) == server.order)
            #expect(second.trips.map(\.id) == server.order)
        }
    }

    @Test(arguments: TestStore.all) @MainActor func aChangeOnAStaleListReloadsAndSaysSo(kind: TestStore) async throws {
        try await ClientTestServer.with(kind) { @MainActor server in
            let store = try await store(server)
            store.stop()  // it no longer hears of other changes
            try await TripsClient(baseURL: server.url).move([1], before: nil)
            store.move([2], before: 1)
            await store.sent()
            guard case .reloaded(let detail)? = store.notice else { throw TestFailure("no reload: \(String(describing: store.notice))") }
            #expect(!detail.isEmpty)
            #expect(store.trips.map(\.id) == [2, 3, 4, 5, 6, 1])
            #expect(server.order == [2, 3, 4, 5, 6, 1])
        }
    }
}
