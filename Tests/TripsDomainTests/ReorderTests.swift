import Foundation
import Testing
import TripsDomain

@testable import TripsFormats

/// A list of trips with ids 1...count, for reorder cases.
func numberedList(_ count: Int) -> TripList {
    let template = Trip.samples[0]
    return TripList(
        trips: (1...max(count, 1)).prefix(count).map { id in
            Trip(id: id, city: "City \(id)", country: "Country", nights: 1, price: 1, start: template.start)
        })
}

@Suite struct ReorderTests {
    @Test(arguments: [
        // (sources, destination, expected order of [1, 2, 3, 4, 5])
        ([2], ReorderDifference.Destination.before(1), [2, 1, 3, 4, 5]),
        ([1], .end, [2, 3, 4, 5, 1]),
        ([4, 2], .before(1), [2, 4, 1, 3, 5]),  // moved trips keep their list order, not the sources' order
        ([5, 1], .before(3), [2, 1, 5, 3, 4]),
        ([2, 2, 4], .end, [1, 3, 5, 2, 4]),  // duplicates count once
        ([2, 3], .before(2), [1, 2, 3, 4, 5]),  // destination is moving: the block stays where it stood
        ([2, 4], .before(2), [1, 2, 4, 3, 5]),  // lands before the first non-moving trip after the destination
        ([4, 5], .before(4), [1, 2, 3, 4, 5]),  // nothing after the destination is still: the end
        ([1, 3], .before(3), [2, 1, 3, 4, 5]),
    ])
    func aDifferenceMovesTheSourcesAsABlock(sources: [Int], destination: ReorderDifference.Destination, expected: [Int]) throws {
        var list = numberedList(5)
        try list.move(ReorderDifference(sources: sources, destination: destination))
        #expect(list.trips.map(\.id) == expected)
    }

    @Test func aDifferenceThatChangesNothingIsNotANewRevision() throws {
        var list = numberedList(5)
        let changed = try list.move(ReorderDifference(sources: [5], destination: .end))
        #expect(!changed)
        #expect(list.revision == 0)
        let moved = try list.move(ReorderDifference(sources: [1], destination: .end))
        #expect(moved)
        #expect(list.revision == 1)
    }

    @Test func emptySourcesAreRefused() {
        var list = numberedList(3)
        #expect(throws: TripsError.emptySources) { try list.move(ReorderDifference(sources: [], destination: .end)) }
        #expect(list == numberedList(3))
    }

    @Test func unknownSourcesAreNamedAndChangeNothing() {
        var list = numberedList(3)
        #expect(throws: TripsError.unknownTrips([9, 7])) {
            try list.move(ReorderDifference(sources: [1, 9, 7, 9], destination: .end))
        }
        #expect(list == numberedList(3))
    }

    @Test func anUnknownDestinationIsAnErrorNotTheEnd() {
        var list = numberedList(3)
        #expect(throws: TripsError.unknownDestination(42)) {
            try list.move(ReorderDifference(sources: [1], destination: .before(42)))
        }
        #expect(list == numberedList(3))
    }

    /// The rules written the slow, obvious way, to check `move` against.
    private func naiveMove(_ ids: [Int], sources: Set<Int>, destination: ReorderDifference.Destination) -> [Int] {
        let block = ids.filter(sources.contains)
        var rest = ids.filter { !sources.contains($0) }
        var index = rest.count
        if case .before(let target) = destination {
            let start = ids.firstIndex(of: target)!
            if let anchor = ids[start...].first(where: { !sources.contains($0) }) {
                index = rest.firstIndex(of: anchor)!
            }
        }
        rest.insert(contentsOf: block, at: index)
        return rest
    }

    @Test func moveMatchesTheReferenceModelForEverySmallCase() throws {
        for count in 1...6 {
            let ids = Array(1...count)
            let destinations = ids.map(ReorderDifference.Destination.before) + [.end]
            for mask in 1..<(1 << count) {
                let sources = ids.filter { mask & (1 << ($0 - 1)) != 0 }
                for destination in destinations {
                    var list = numberedList(count)
                    try list.move(ReorderDifference(sources: sources.reversed(), destination: destination))
                    let expected = naiveMove(ids, sources: Set(sources), destination: destination)
                    #expect(list.trips.map(\.id) == expected, "sources \(sources) to \(destination)")
                    #expect(list.revision == (expected == ids ? 0 : 1))
                }
            }
        }
    }

    @Test func differencesReadFromJSON() throws {
        let before = try ReorderDifference(json: JSONValue(parsing: Array(#"{"sources": [2], "destination": {"before": 1}}"#.utf8)))
        #expect(before == ReorderDifference(sources: [2], destination: .before(1)))
        let end = try ReorderDifference(json: JSONValue(parsing: Array(#"{"sources": [2, 5], "destination": "end"}"#.utf8)))
        #expect(end == ReorderDifference(sources: [2, 5], destination: .end))
    }

    @Test(arguments: [
        (#"{"sources": [2]}"#, "destination: is required"),
        (#"{"destination": "end"}"#, "sources: is required"),
        (#"{"sources": 2, "destination": "end"}"#, "sources: must be an array of trip ids"),
        (#"{"sources": ["a"], "destination": "end"}"#, "sources: must be a whole number, not a string"),
        (
            #"{"sources": [1], "destination": "start"}"#,
            #"destination (an object like {"before": 1}, or "end") must be a JSON object, not a string"#
        ),
        (#"{"sources": [1], "destination": {"after": 2}}"#, "before: is required"),
        (#"{"sources": [1], "destination": "end", "dest": 1}"#, "dest: is not a member this request accepts"),
    ])
    func malformedDifferencesSayWhatIsWrong(json: String, message: String) throws {
        let error = #expect(throws: TripsError.self) { try ReorderDifference(json: JSONValue(parsing: Array(json.utf8))) }
        #expect(error?.description == message)
    }
}
