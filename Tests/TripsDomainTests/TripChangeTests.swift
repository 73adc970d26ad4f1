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

    /// A second copy given each change's outcome on the first ends where the first does.
    @Test func aSecondCopyGivenTheOutcomesEndsTheSame() throws {
        var first = TripList.samples
        var second = TripList.samples
        for change in changes + [.add([lisbonDraft(), lisbonDraft()], before: 2), .setPhoto(3, nil), .setFavorite(8, false)] {
            let outcome = try first.apply(change)
            #expect(try second.apply(change, as: outcome) == outcome)
            #expect(second == first)
            #expect(second.revision == first.revision && second.version(of: 2) == first.version(of: 2))
        }
    }

    /// A second copy following the first, which has gone further, takes an added trip's entry
    /// (its search text with it) only while the first holds it as added: a trip changed since
    /// is made afresh from the outcome, and searches find it by its words then.
    @Test func aSecondCopyFollowingAFirstFurtherOnEndsTheSame() throws {
        var porto = lisbonDraft()
        porto.city = "Porto"
        let steps: [TripChange] = [.add(lisbonDraft()), .add(lisbonDraft()), .replace(7, porto), .setFavorite(8, true)]
        var first = TripList.samples
        let outcomes = try steps.map { try first.apply($0) }
        var second = TripList.samples
        var alone = TripList.samples
        for (change, outcome) in zip(steps, outcomes) {
            #expect(try second.apply(change, as: outcome, following: first) == outcome)
            try alone.apply(change)
            #expect(second == alone)
            for search in ["lisbon", "porto"] {
                let query = TripQuery(search: search)
                #expect(second.trips.matching(query).map(\.id) == alone.trips.matching(query).map(\.id), "\(search)")
            }
        }
        #expect(second == first)
    }

    /// A favorite's or a photo's outcome is not taken: the change is applied afresh.
    @Test func anOutcomeThatSaysOtherwiseIsNotTaken() throws {
        var list = TripList.samples
        let trip = try #require(list[2])
        var favorite = trip
        favorite.isFavorite = !trip.isFavorite
        #expect(try list.apply(.setFavorite(2, trip.isFavorite), as: .trip(favorite)) == .trip(trip))
        #expect(list == TripList.samples)
        #expect(try list.apply(.setPhoto(2, trip.photo), as: .trip(favorite)) == .trip(trip))
        #expect(list == TripList.samples)
    }

    /// An outcome that does not fit the change or the list (other ids, another trip, trips
    /// already there) is not taken: the change is applied afresh, and refused as it would be.
    @Test func anOutcomeThatDoesNotFitIsNotTaken() throws {
        var fresh = TripList.samples
        let outcome = try fresh.apply(.add(lisbonDraft()))
        guard case .added(let trips) = outcome else { throw TripsError.unknownTrips([]) }
        let shifted = [Trip(id: 9, draft: lisbonDraft())]
        var list = TripList.samples
        #expect(try list.apply(.add(lisbonDraft()), as: .added(shifted)) == outcome)
        #expect(list == fresh)
        #expect(throws: TripsError.self) { try list.apply(.add([lisbonDraft()], before: 99), as: .added(shifted)) }
        #expect(throws: TripsError.self) { try list.apply(.replace(99, lisbonDraft()), as: .trip(trips[0])) }
        let before = list
        #expect(
            try list.apply(.replace(2, lisbonDraft()), as: .trip(trips[0]))
                == .trip(Trip(id: 2, draft: lisbonDraft(), photo: before[2]?.photo)))
    }
}
