import Testing
@testable import TripsServer
@testable import TripsStore

@Suite struct TripPositionsTests {
    private func isIncreasing(_ keys: [Int64]) -> Bool {
        zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }
    }

    @Test func keysGoStrictlyInsideTheGapInOrder() throws {
        let keys = try #require(TripPositions.keys(5, between: 100, and: 700))
        #expect(keys == [200, 300, 400, 500, 600])
        #expect(TripPositions.keys(0, between: 1, and: 2) == [])
    }

    @Test func theEndsOfTheListAreOpen() throws {
        #expect(TripPositions.keys(2, between: 10, and: nil) == [10 + TripPositions.spacing, 10 + 2 * TripPositions.spacing])
        #expect(TripPositions.keys(2, between: nil, and: 10) == [10 - 2 * TripPositions.spacing, 10 - TripPositions.spacing])
        #expect(TripPositions.keys(3, between: nil, and: nil) == [1, 2, 3].map { $0 * TripPositions.spacing })
    }

    @Test func aNarrowGapHasNoRoom() {
        #expect(TripPositions.keys(1, between: 5, and: 6) == nil)
        #expect(TripPositions.keys(3, between: 5, and: 8) == nil)
        #expect(TripPositions.keys(2, between: 5, and: 8) == [6, 7])
        #expect(TripPositions.keys(1, between: .max - 1, and: nil) == nil)  // past the key space
        #expect(TripPositions.keys(1, between: nil, and: .min) == nil)
    }

    @Test func repeatedInsertionsIntoOneGapRunOutOnlyAfterManyHalvings() {
        var (low, high): (Int64, Int64) = (0, TripPositions.spacing)
        var insertions = 0
        while let key = TripPositions.keys(1, between: low, and: high)?.first {
            #expect(low < key && key < high)
            high = key
            insertions += 1
        }
        #expect(insertions == 16)  // log2(spacing), then the caller spreads a window out
    }

    @Test func aWindowIsSpreadOverItsOwnRangeOrPastAnOpenEnd() throws {
        let inside = try #require(TripPositions.spread(5, from: 0, to: 8 * TripPositions.minimumSpreadStep))
        #expect(inside == [0, 2, 4, 6, 8].map { $0 * TripPositions.minimumSpreadStep })
        #expect(TripPositions.spread(5, from: 0, to: 4 * TripPositions.minimumSpreadStep - 1) == nil)
        let pastTheEnd = try #require(TripPositions.spread(3, from: 40, to: nil))
        #expect(pastTheEnd == [40, 40 + TripPositions.spacing, 40 + 2 * TripPositions.spacing])
        let beforeTheStart = try #require(TripPositions.spread(3, from: nil, to: 40))
        #expect(beforeTheStart == [40 - 2 * TripPositions.spacing, 40 - TripPositions.spacing, 40])
        let whole = try #require(TripPositions.spread(1_000, from: nil, to: nil))
        #expect(isIncreasing(whole) && whole.first == TripPositions.spacing)
        #expect(TripPositions.spread(1, from: 7, to: 7) == [7])
    }
}
