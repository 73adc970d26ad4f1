import Foundation
import Testing
import TripsDomain
import TripsFormats

/// The countries the page's chips name: first seen, each spelling once, found by reading only
/// as far down the list as needed, with the counts the list keeps through every change.
@Suite struct FirstCountriesTests {
    /// Every country of `trips`, first seen first, each spelling once: the pass it replaces.
    private static func everyCountry(_ trips: some Sequence<Trip>) -> [String] {
        var seen = Set<String>()
        return trips.map(\.country).filter { seen.insert($0).inserted }
    }

    @Test func theCountriesComeInFirstSeenOrderUpToTheLimit() {
        let list = TripList.samples
        let every = Self.everyCountry(list.trips)
        #expect(list.countries.count == every.count)
        #expect(list.firstCountries(limit: 50) == every)
        #expect(list.firstCountries(limit: 2) == Array(every.prefix(2)))
        #expect(list.firstCountries(limit: 0).isEmpty && list.firstCountries(limit: -1).isEmpty)
        #expect(TripList().firstCountries(limit: 50).isEmpty)
    }

    @Test func removingACountryUndoesAddingIt() {
        var counts = CountryCounts()
        counts.add("Norway")
        counts.add("Norway")
        counts.add("Chile")
        #expect((counts.count, counts["Norway"], counts["Chile"]) == (2, 2, 1))
        counts.remove("Norway")
        counts.remove("Chile")
        counts.remove("Peru")  // never added: nothing to undo
        #expect((counts.count, counts["Norway"], counts["Chile"], counts["Peru"]) == (1, 1, 0, 0))
    }

    /// After each kind of change the counts are the trips' and the countries those of a whole
    /// pass; a move or a sort changes which is seen first.
    @Test func theListKeepsItsCountriesThroughEveryChange() throws {
        var list = TripList.samples
        var restoration = TripList.Restoration(expectedCount: 2, revision: 3, lastIssuedID: 0)
        #expect(restoration.append(Trip.samples[0], version: 1) && restoration.append(Trip.samples[4], version: 2))
        #expect(restoration.finish().firstCountries(limit: 50) == Self.everyCountry([Trip.samples[0], Trip.samples[4]]))
        let changes: [(String, (inout TripList) throws -> Void)] = [
            ("add", { _ = try $0.add(lisbonDraft()) }),
            ("add before", { _ = try $0.add([lisbonDraft(), lisbonDraft()], before: 2) }),
            ("patch country", { _ = try $0.patch(2, with: .object(["country": .string("Iceland")])) }),
            ("patch another", { _ = try $0.patch(3, with: .object(["country": .string("Norway")])) }),
            ("replace", { _ = try $0.replace(1, with: lisbonDraft()) }),
            ("move", { _ = try $0.move(ReorderDifference(sources: [5], destination: .before(2))) }),
            ("sort", { _ = $0.sort(by: .price) }),
            ("delete", { _ = try $0.delete([2, 6]) }),
            ("delete all", { list in _ = try list.delete(list.trips.map(\.id)) }),
        ]
        for (name, change) in changes {
            try change(&list)
            let every = Self.everyCountry(list.trips)
            #expect(list.countries.count == every.count, "after \(name)")
            #expect(list.firstCountries(limit: 50) == every, "after \(name)")
            #expect(list.firstCountries(limit: 2) == Array(every.prefix(2)), "after \(name)")
        }
        #expect(list.countries.count == 0)
    }
}
