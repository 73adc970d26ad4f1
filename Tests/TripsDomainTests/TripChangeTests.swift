import Foundation
import Testing
import TripsDomain

@Suite struct TripChangeTests {
    private let changes: [TripChange] = [
        .add(lisbonDraft()),
        .setFavorite(2, true),
        .move(ReorderDifference(sources: [7, 3], destination: .before(1))),
        .makeFavorites([3, 7, 2]),
        .replace(4, lisbonDraft()),
        .delete([1, 6]),
        .sort(.price),
    ]

    @Test func replayingTheSameChangesGivesTheSameList() throws {
        var first = TripList.samples
        var second = TripList.samples
        for change in changes { try first.apply(change) }
        for change in changes { try second.apply(change) }
        #expect(first == second)
        #expect(first.revision == UInt64(changes.count))
        #expect(first.trips.map(\.id) == [7, 4, 2, 3, 5])  // 7 and 4 tie on price: stable
    }

    @Test func outcomesSayWhatChanged() throws {
        var list = TripList.samples
        #expect(try list.apply(.makeFavorites([2, 1])) == .addedFavorites([2]))
        #expect(try list.apply(.makeFavorites([2, 1])) == .addedFavorites([]))
        #expect(try list.apply(.move(ReorderDifference(sources: [6], destination: .end))) == .listChanged(false))
        #expect(try list.apply(.delete([])) == .listChanged(false))
        guard case .added(let trips) = try list.apply(.add(lisbonDraft())) else {
            Issue.record("no trip")
            return
        }
        #expect(trips.map(\.id) == [7])
    }
}
