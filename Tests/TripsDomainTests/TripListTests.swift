import Foundation
import Testing
import TripsDomain

@testable import TripsFormats

/// A valid draft to build on.
func lisbonDraft() -> TripDraft {
    TripDraft(city: "Lisbon", country: "Portugal", nights: 4, price: Decimal(string: "899.9")!, start: TripDate.parse("2027-05-01")!)
}

@Suite struct TripListTests {
    @Test func samplesHaveTheTripsTheLessonNames() {
        let list = TripList.samples
        #expect(list.trips.count >= 5)
        #expect(list[1]?.city == "Seattle" && list[1]?.country == "United States")
        #expect(list[2]?.city == "Vancouver" && list[2]?.country == "Canada")
        #expect(list[3]?.city == "Atacama" && list[3]?.country == "Chile")
        #expect(!list.trips.filter(\.isFavorite).isEmpty)
        #expect(Set(list.trips.map(\.country)).count < list.trips.count)
    }

    @Test func addAppendsUnderANewId() throws {
        var list = TripList.samples
        let trip = try list.add(lisbonDraft())
        #expect(trip.id == 7)
        #expect(Array(list.trips).last == trip)
        #expect(list.revision == 1)
    }

    @Test func idsOfDeletedTripsAreNeverIssuedAgain() throws {
        var list = TripList.samples
        let first = try list.add(lisbonDraft())
        try list.delete([first.id])
        let second = try list.add(lisbonDraft())
        #expect(second.id == first.id + 1)
        #expect(TripList(trips: [], lastIssuedID: 40).lastIssuedID == 40)
    }

    @Test func addRefusesAnInvalidDraft() {
        var list = TripList.samples
        var draft = lisbonDraft()
        draft.nights = 0
        #expect(throws: TripsError.invalidField(.nights, "must be between 1 and 365")) { try list.add(draft) }
        #expect(list == TripList.samples)
    }

    @Test func deleteRemovesTripsInAnyOrder() throws {
        var list = TripList.samples
        try list.delete([5, 2, 2])
        #expect(list.trips.map(\.id) == [1, 3, 4, 6])
        #expect(list[5] == nil)
        #expect(list.version(of: 5) == nil)
    }

    @Test func deleteWithAnUnknownIdDeletesNothing() {
        var list = TripList.samples
        #expect(throws: TripsError.unknownTrips([8, 9])) { try list.delete([1, 8, 9]) }
        #expect(list == TripList.samples)
    }

    @Test func replaceChangesEverythingButTheId() throws {
        var list = TripList.samples
        let trip = try list.replace(2, with: lisbonDraft())
        #expect(trip.id == 2 && trip.city == "Lisbon")
        #expect(list.trips.map(\.id) == TripList.samples.trips.map(\.id))
        #expect(throws: TripsError.unknownTrips([77])) { try list.replace(77, with: lisbonDraft()) }
    }

    @Test func favoritesCanBeSetAndToggled() throws {
        var list = TripList.samples
        let set = try list.setFavorite(2, true)
        let setAgain = try list.setFavorite(2, true)
        #expect(set.isFavorite && setAgain.isFavorite)
        #expect(list.revision == 1)  // setting what is already so is no change
        let toggledOff = try list.toggleFavorite(2)
        let toggledOn = try list.toggleFavorite(2)
        #expect(!toggledOff.isFavorite && toggledOn.isFavorite)
        #expect(throws: TripsError.unknownTrips([0])) { try list.toggleFavorite(0) }
    }

    @Test func revisionsAndVersionsFollowChanges() throws {
        var list = TripList.samples
        let versionOf3 = list.version(of: 3)
        try list.setFavorite(2, true)
        #expect(list.revision == 1)
        #expect(list.version(of: 2) == 1)
        #expect(list.version(of: 3) == versionOf3)
        try list.move(ReorderDifference(sources: [3], destination: .end))
        #expect(list.revision == 2)
        #expect(list.version(of: 3) == versionOf3)  // moving changes the list, not the trip
    }

    @Test func sortOrdersTheStoredListStably() throws {
        var list = TripList.samples
        let sortedByPrice = list.sort(by: .price)
        #expect(sortedByPrice)
        #expect(list.trips.map(\.id) == [6, 2, 1, 4, 3, 5])
        let sortedAgain = list.sort(by: .price)
        #expect(!sortedAgain)
        let sortedByStart = list.sort(by: .start)
        #expect(sortedByStart)
        #expect(list.trips.map(\.id) == [1, 2, 3, 4, 5, 6])

        // Equal prices keep the order they had.
        var ties = numberedList(4)
        try ties.move(ReorderDifference(sources: [3], destination: .before(1)))
        let tiesChanged = ties.sort(by: .price)
        #expect(!tiesChanged)
        #expect(ties.trips.map(\.id) == [3, 1, 2, 4])
    }
}

@Suite struct MergePatchTests {
    private func patch(_ json: String, id: Int = 2) throws -> (TripList, Trip) {
        var list = TripList.samples
        let trip = try list.patch(id, with: JSONValue(parsing: Array(json.utf8)))
        return (list, trip)
    }

    @Test func onlyNamedFieldsChange() throws {
        let (list, trip) = try patch(#"{"nights": 5, "notes": "Granville Island"}"#)
        var expected = TripList.samples[2]!
        expected.nights = 5
        expected.notes = "Granville Island"
        #expect(trip == expected)
        #expect(list[2] == expected)
    }

    @Test func nullResetsAnOptionalField() throws {
        let (_, trip) = try patch(#"{"notes": null, "imageName": null, "isFavorite": null}"#, id: 1)
        #expect(trip.notes == "" && trip.imageName == "" && !trip.isFavorite)
    }

    @Test(arguments: ["city", "country", "nights", "price", "start", "id"])
    func nullOnARequiredFieldIsAnError(field: String) {
        let error = #expect(throws: TripsError.self) { try patch(#"{"\#(field)": null}"#) }
        #expect(error?.description == "\(field): cannot be null: a trip must have it")
    }

    @Test func theIdCannotChange() throws {
        #expect(throws: TripsError.invalidField(.id, "must match the trip's id 2")) { try patch(#"{"id": 3}"#) }
        let (_, trip) = try patch(#"{"id": 2, "nights": 2}"#)
        #expect(trip.nights == 2)
    }

    @Test func invalidPatchesChangeNothing() throws {
        var list = TripList.samples
        for json in [#"{"nights": 0}"#, #"{"isFavourite": true}"#, #"{"colour": null}"#, "[1]", #"{"city": 3}"#] {
            #expect(throws: TripsError.self, "\(json)") { try list.patch(2, with: JSONValue(parsing: Array(json.utf8))) }
        }
        #expect(list == TripList.samples)
        #expect(throws: TripsError.unknownTrips([42])) { try list.patch(42, with: .object([:])) }
    }
}

@Suite struct TripListRestoreTests {
    @Test func aRestoredListKeepsRevisionVersionsAndIssuedIds() throws {
        var list = TripList.samples
        try list.setFavorite(3, true)
        try list.add(lisbonDraft())
        try list.delete([7])
        let restored = TripList(
            restoring: list.trips.map { ($0, list.version(of: $0.id)!) }, revision: list.revision,
            lastIssuedID: list.lastIssuedID)
        #expect(restored == list)
        #expect(restored.version(of: 3) == 1)
    }
}
