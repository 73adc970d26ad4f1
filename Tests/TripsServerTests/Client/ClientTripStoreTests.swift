import Foundation
import Synchronization
import Testing
import TripsClient
import TripsDomain

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Observation)
import Observation
#endif

/// The lesson's `TripStore` over a live server: optimistic, conditional, kept in sync.
@Suite struct ClientTripStoreTests {
    /// Sends over `URLSession`, recording each request's method and path.
    final class RecordingTransport: HTTPTransport {
        private let transport = URLSessionTransport()
        private let sent = Mutex<[String]>([])
        var requests: [String] { sent.withLock { $0 } }

        func send(_ request: URLRequest, maxBytes: Int) async throws -> (Data, HTTPURLResponse) {
            sent.withLock { $0.append("\(request.httpMethod ?? "GET") \(request.url?.path ?? "")") }
            return try await transport.send(request, maxBytes: maxBytes)
        }
    }

    @MainActor private func store(_ server: ClientTestServer, transport: any HTTPTransport = URLSessionTransport()) async throws
        -> TripStore
    {
        let store = TripStore(
            client: TripsClient(baseURL: server.url, retry: RetryPolicy { _ in await Task.yield() }, transport: transport))
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

    @Test(arguments: TestStore.all) @MainActor func aChangeToTheListUsesTheTagItsLastAnswerCarried(kind: TestStore) async throws {
        try await ClientTestServer.with(kind) { @MainActor server in
            let transport = RecordingTransport()
            let store = try await store(server, transport: transport)
            defer { store.stop() }
            store.move([6], before: 1)
            _ = store.makeFavorites(store.trips.filter { $0.id == 3 })
            store.move([2], before: nil)
            try await caughtUp(store, with: server)
            #expect(store.notice == nil && store.trips.map(\.id) == server.order && server.order == [6, 1, 3, 4, 5, 2])
            #expect(!transport.requests.contains { $0.hasPrefix("HEAD") })
            // Another client's change: the store's revision moved past the last tag it saw.
            try await TripsClient(baseURL: server.url).move([1], before: nil)
            try await caughtUp(store, with: server)
            store.move([4], before: 6)
            try await caughtUp(store, with: server)
            #expect(transport.requests.filter { $0.hasPrefix("HEAD") } == ["HEAD /trips"])
            #expect(store.notice == nil && store.trips.map(\.id) == server.order && server.order == [4, 6, 3, 5, 2, 1])
        }
    }

    #if canImport(Observation)
    /// Records whether an observation fired.
    final class Fired: Sendable {
        private let fired = Mutex(false)
        var value: Bool { fired.withLock { $0 } }
        func set() { fired.withLock { $0 = true } }
    }

    @Test @MainActor func viewsAreToldOnlyWhenWhatTheyShowChanges() async throws {
        try await ClientTestServer.with(.memory) { @MainActor server in
            let store = try await store(server)
            defer { store.stop() }
            store.move([4], before: 1)
            let fired = Fired()
            withObservationTracking {
                _ = store.trips
                _ = store.notice
            } onChange: {
                fired.set()
            }
            // The answer comes and the feed confirms the move: the store's work, not the view's.
            try await caughtUp(store, with: server)
            #expect(!fired.value)
            #expect(store.trips.map(\.id) == [4, 1, 2, 3, 5, 6])
            let revision = Fired()
            withObservationTracking {
                _ = store.revision
            } onChange: {
                revision.set()
            }
            store.move([1], before: nil)
            try await caughtUp(store, with: server)
            #expect(revision.value)
        }
    }
    #endif
}
