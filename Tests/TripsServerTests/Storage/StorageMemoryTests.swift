import Synchronization
import Testing
import TripsDomain
@testable import TripsServer
@testable import TripsStore

@Suite struct StorageMemoryTests {
    @Test func inMemoryChangesCompleteAtOnceAndFollowTheSameRules() throws {
        let store = MemoryTripStore(seedSamples: true)
        var results: [Result<Mutation, MutationError>] = []
        let record = Mutex<[Result<Mutation, MutationError>]>([])
        store.mutate({ _ in .setFavorite(2, true) }) { result in record.withLock { $0.append(result) } }
        store.mutate({ _ in .setFavorite(2, true) }) { result in record.withLock { $0.append(result) } }
        store.mutate({ _ in .delete([42]) }) { result in record.withLock { $0.append(result) } }
        store.mutate({ _ throws(MutationError) in throw .preconditionFailed }) { result in record.withLock { $0.append(result) } }
        store.mutate({ _ in nil }) { result in record.withLock { $0.append(result) } }
        results = record.withLock { $0 }
        try #require(results.count == 5)  // all synchronous

        let first = try results[0].get()
        #expect(first.revision == 1)
        #expect(first.outcome == .trip(try #require(store.list[2])))
        #expect(first.tripVersion == 1)
        #expect(try results[1].get().revision == 1)  // no change, no new revision
        guard case .failure(.rejected(.unknownTrips([42]))) = results[2] else {
            Issue.record("\(results[2])")
            return
        }
        guard case .failure(.preconditionFailed) = results[3] else {
            Issue.record("\(results[3])")
            return
        }
        #expect(try results[4].get().outcome == nil)
        #expect(store.list.revision == 1)

        store.close()
        store.mutate({ _ in .sort(.price) }) { result in record.withLock { $0.append(result) } }
        #expect(record.withLock { $0.last?.storageError } == .closed)
    }

    /// A favorite drop's change carries the trips it made favorites, in list order, whether or
    /// not the list was asked for: an answer without the favorites names them holding no copy
    /// of the list (which would make the store's next change copy what it touches).
    @Test func aDropCarriesTheTripsItAddedWithoutTheList() throws {
        let store = MemoryTripStore(seedSamples: true)
        let record = Mutex<[Result<Mutation, MutationError>]>([])
        store.mutate({ _ in .makeFavorites([3, 2, 3]) }) { result in record.withLock { $0.append(result) } }
        store.mutate({ _ in .makeFavorites([2, 4]) }, returningList: true) { result in record.withLock { $0.append(result) } }
        let (minimal, full) = try record.withLock { (try $0[0].get(), try $0[1].get()) }
        #expect(minimal.list == nil)
        #expect(minimal.addedFavorites.map(\.id) == [2, 3])
        #expect(minimal.addedFavorites.allSatisfy { $0.isFavorite })
        // Only the trip the second drop added (2 was a favorite already); the list as asked.
        #expect(full.addedFavorites.map(\.id) == [4])
        #expect(full.list?.favorites.map(\.id) == store.list.favorites.map(\.id))
        store.close()
    }

    @Test func anEmptyInMemoryStoreHasNoSamples() throws {
        let store = MemoryTripStore(seedSamples: false)
        defer { store.close() }
        #expect(store.list == TripList())
    }
}
