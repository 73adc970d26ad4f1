import Foundation
import Testing
import TripsDomain

@testable import TripsFormats

@Suite struct SentenceTests {
    @Test func aTripReadsAsASentence() {
        #expect(TripList.samples[2]!.sentence == "Vancouver, Canada: 3 nights from March 5, 2027")
    }

    @Test func oneNightIsSingular() {
        #expect(TripList.samples[6]!.sentence == "Zürich, Switzerland: 1 night from December 11, 2027")
    }

    @Test func theDateIsTheDayInUTC() throws {
        var trip = TripList.samples[2]!
        trip.start = try #require(TripDate.parse("2027-03-05T23:30:00-05:00"))
        #expect(trip.sentence.hasSuffix("from March 6, 2027"))
    }

    @Test func aSentenceReadsBackIntoADraft() throws {
        let draft = try TripDraft(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027\n")
        #expect(draft.city == "Lisbon" && draft.country == "Portugal" && draft.nights == 4)
        #expect(draft.start == TripDate.parse("2027-05-01"))
        #expect(draft.price == 0 && !draft.isFavorite)
    }

    @Test func everySampleSurvivesTheRoundTrip() throws {
        for trip in Trip.samples {
            let draft = try TripDraft(sentence: trip.sentence)
            #expect(draft.sentence == trip.sentence)
            #expect(draft.city == trip.city && draft.country == trip.country && draft.nights == trip.nights)
        }
        let commaCity = try TripDraft(sentence: "Washington, D.C., United States: 1 night from July 4, 2027")
        #expect(commaCity.city == "Washington, D.C." && commaCity.country == "United States")
    }

    @Test(arguments: [
        "Lisbon: 4 nights from May 1, 2027",
        "Lisbon, Portugal 4 nights from May 1, 2027",
        "Lisbon, Portugal: four nights from May 1, 2027",
        "Lisbon, Portugal: 4 night from May 1, 2027",
        "Lisbon, Portugal: 1 nights from May 1, 2027",
        "Lisbon, Portugal: 4 nights from Maytember 1, 2027",
        "Lisbon, Portugal: 4 nights from February 30, 2027",
        "Lisbon, Portugal: 4 nights since May 1, 2027",
        "Lisbon, Portugal: 4 nights from May 1 2027",
        "",
    ])
    func otherTextIsNotASentence(text: String) {
        #expect(throws: TripsError.self) { try TripDraft(sentence: text) }
    }

    @Test func aSentenceMustStillMakeAValidDraft() {
        #expect(throws: TripsError.invalidField(.nights, "must be between 1 and 365")) {
            try TripDraft(sentence: "Lisbon, Portugal: 400 nights from May 1, 2027")
        }
    }
}

@Suite struct RepresentationTests {
    @Test func jsonComesFirstThenText() {
        #expect(Trip.transferRepresentations.map(\.mediaType) == [.json, .plainText])
        #expect([Trip].transferRepresentations.map(\.mediaType) == [.json, .plainText])
        #expect(NewTrips.importRepresentations.map(\.mediaType) == [.json, .plainText])
        #expect(FavoriteDrop.importRepresentations.map(\.mediaType) == [.json, .plainText])
        #expect(ReorderDifference.importRepresentations.map(\.mediaType) == [.json])
    }

    @Test func aListIsAJSONArrayOrOneSentencePerLine() throws {
        let trips = Array(Trip.samples.prefix(2))
        let text = String(decoding: [Trip].transferRepresentations[1].export(trips), as: UTF8.self)
        #expect(text == "Seattle, United States: 4 nights from January 12, 2027\nVancouver, Canada: 3 nights from March 5, 2027\n")
        let json = try JSONValue(parsing: [Trip].transferRepresentations[0].export(trips))
        guard case .array(let elements) = json else {
            Issue.record("not an array")
            return
        }
        #expect(elements.count == 2)
    }

    @Test func importsDecodeBodies() throws {
        let text = NewTrips.importRepresentations[1]
        #expect(try text.decode(Array("Lisbon, Portugal: 4 nights from May 1, 2027".utf8), nil).drafts.map(\.city) == ["Lisbon"])
        #expect(throws: TripsError.malformedText) { try text.decode([0xFF], nil) }
        let json = NewTrips.importRepresentations[0]
        let error = #expect(throws: TripsError.self) { try json.decode(Array("{nope".utf8), nil) }
        guard case .malformedJSON = error else {
            Issue.record("expected malformedJSON, got \(String(describing: error))")
            return
        }
    }
}

@Suite struct TripQueryTests {
    @Test func viewsFilterSearchAndSortWithoutTouchingTheStoredOrder() throws {
        let list = TripList.samples
        #expect(list.trips.matching(TripQuery()).map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(list.trips.matching(TripQuery(filter: .favorites)).map(\.id) == [1, 5])
        #expect(list.trips.matching(TripQuery(country: "united states")).map(\.id) == [1, 4])
        #expect(list.trips.matching(TripQuery(search: "zurich")).map(\.id) == [6])
        #expect(list.trips.matching(TripQuery(search: "ZÜR")).map(\.id) == [6])
        #expect(list.trips.matching(TripQuery(search: "driest")).map(\.id) == [3])  // notes
        #expect(list.trips.matching(TripQuery(search: "canada")).map(\.id) == [2])  // country
        #expect(list.trips.matching(TripQuery(order: TripOrder("-price"))).map(\.id) == [5, 3, 4, 1, 2, 6])
        #expect(list.trips.matching(TripQuery(order: TripOrder("start"))).map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(list.trips.matching(TripQuery(filter: .favorites, order: TripOrder("-start"))).map(\.id) == [5, 1])
        #expect(list.trips.matching(TripQuery(country: "United States", search: "high")).map(\.id) == [4])
        #expect(list == TripList.samples)
    }

    @Test func sortOrdersAreWrittenWithAnOptionalMinus() {
        #expect(TripOrder("price") == TripOrder(key: .price))
        #expect(TripOrder("-start") == TripOrder(key: .start, isDescending: true))
        #expect(TripOrder("name") == nil)
        #expect(TripOrder("--price") == nil)
    }
}
