import Foundation
import Testing
import TripsDomain
import TripsFormats

/// The totals the lesson's TripSummary shows, and the list's own, which it keeps through every
/// change instead of counting the list again.
@Suite struct TripTotalsTests {
    @Test func theSamplesAddUpToTheirTripsNightsAndFavorites() {
        let totals = TripTotals(Trip.samples)
        #expect(totals.trips == Trip.samples.count)
        #expect(totals.nights == Trip.samples.reduce(0) { $0 + $1.nights })
        #expect(totals.favorites == Trip.samples.count(where: \.isFavorite))
        #expect(TripTotals([]) == TripTotals())
    }

    @Test func removingATripUndoesAddingIt() {
        var totals = TripTotals(Trip.samples)
        let before = totals
        totals.add(Trip.samples[0])
        totals.remove(Trip.samples[0])
        #expect(totals == before)
    }

    /// After each kind of change (restored, added, patched, replaced, favorited one by one and
    /// by a drop, moved, sorted, given a photo, deleted), the list's totals are its trips'.
    @Test func theListKeepsItsTotalsThroughEveryChange() throws {
        var list = TripList.samples
        #expect(list.totals == TripTotals(list.trips))
        var restoration = TripList.Restoration(expectedCount: 2, revision: 3, lastIssuedID: 0)
        #expect(restoration.append(Trip.samples[0], version: 1) && restoration.append(Trip.samples[4], version: 2))
        #expect(restoration.finish().totals == TripTotals([Trip.samples[0], Trip.samples[4]]))
        let changes: [(String, (inout TripList) throws -> Void)] = [
            ("add", { _ = try $0.add(lisbonDraft()) }),
            ("add before", { _ = try $0.add([lisbonDraft(), lisbonDraft()], before: 2) }),
            ("patch nights", { _ = try $0.patch(2, with: .object(["nights": .number("9")])) }),
            ("patch favorite", { _ = try $0.patch(3, with: .object(["isFavorite": .bool(true)])) }),
            ("replace", { _ = try $0.replace(1, with: lisbonDraft()) }),
            ("set favorite", { _ = try $0.setFavorite(4, true) }),
            ("toggle favorite", { _ = try $0.toggleFavorite(5) }),
            ("favorite drop", { _ = try $0.makeFavorites(FavoriteDrop(items: [.id(6), .id(2)])) }),
            ("move", { _ = try $0.move(ReorderDifference(sources: [3], destination: .end)) }),
            ("sort", { _ = $0.sort(by: .price) }),
            ("delete", { _ = try $0.delete([2, 6]) }),
            ("delete all", { list in _ = try list.delete(list.trips.map(\.id)) }),
        ]
        for (name, change) in changes {
            try change(&list)
            #expect(list.totals == TripTotals(list.trips), "after \(name)")
        }
        #expect(list.totals == TripTotals())
    }
}
