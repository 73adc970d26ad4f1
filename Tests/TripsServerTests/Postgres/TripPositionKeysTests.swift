import Testing
import TripsDomain

@testable import TripsStore

/// The position keys kept in memory (`TripPositionKeys`): placing trips among the keys a list
/// has, and the form a change records them in. (Against the tables: `PostgresTripTablesLiveTests`.)
@Suite struct TripPositionKeysTests {
    /// Samples 1 to 6 in order, keyed 1, 2, ... times `TripPositions.spacing`.
    private static let list = TripList.samples
    private static let keys = TripPositionKeys(
        list.trips.enumerated().map { ($0.element.id, Int64($0.offset + 1) * TripPositions.spacing) })

    @Test func aBlockTakesKeysInTheGapItLandsIn() throws {
        var moved = Self.list
        _ = try moved.move(ReorderDifference(sources: [5, 6], destination: .before(2)))
        let given = try Self.keys.place([5, 6], in: moved)
        #expect(given.ids == [5, 6])
        let (low, high) = (Self.keys[1]!, Self.keys[2]!)
        #expect(given.keys.allSatisfy { low < $0 && $0 < high } && given.keys == given.keys.sorted())

        var added = Self.list
        let trips = try added.add([storageDraft("Faro")], before: nil)
        let atTheEnd = try Self.keys.place(trips.map(\.id), in: added)
        #expect(atTheEnd.keys == [Self.keys[6]! + TripPositions.spacing])
    }

    @Test func aGapTooNarrowSpreadsOutNeighboursAndAnswersOnlyTheKeysThatChange() throws {
        // Trips 1 and 2 one apart: no room between them.
        var keys = Self.keys
        keys.apply(.init(ids: [2], keys: [keys[1]! + 1]))
        var moved = Self.list
        _ = try moved.move(ReorderDifference(sources: [4], destination: .before(2)))
        let given = try keys.place([4], in: moved)
        #expect(given.ids.contains(4))
        keys.apply(given)
        let order = moved.trips.map { keys[$0.id]! }
        #expect(order == order.sorted() && Set(order).count == order.count)
        #expect(zip(given.ids, given.keys).allSatisfy { Self.keys[$0.0] != $0.1 })
    }

    @Test func aTripWithoutAKeyIsDamage() throws {
        var moved = Self.list
        _ = try moved.move(ReorderDifference(sources: [4], destination: .before(2)))
        var keys = Self.keys
        keys.remove([1])
        #expect(throws: PostgresStoreError.self) { try keys.place([4], in: moved) }
    }

    /// An assignment read from `text`'s bytes, as a row lends them.
    private func read(_ text: String) -> TripPositionKeys.Assignment? {
        var text = text
        return text.withUTF8 { TripPositionKeys.Assignment(bytes: UnsafeRawBufferPointer($0)) }
    }

    @Test func anAssignmentReadsBackFromItsText() {
        let assignment = TripPositionKeys.Assignment(ids: [7, 12], keys: [-65_536, Int64.max])
        #expect(assignment.text == "7:-65536,12:9223372036854775807")
        #expect(read(assignment.text) == assignment)
        #expect(read("") == TripPositionKeys.Assignment())
        let lowest = TripPositionKeys.Assignment(ids: [3], keys: [Int64.min])
        #expect(read(lowest.text) == lowest)
        let broken = [
            "7", "7:", ":1", "7:1,", "7:1;8:2", "x:1", "7:99999999999999999999", "7:1:2", "7:-", "7:--1", "7:1x",
            "7:9223372036854775808", "7:-9223372036854775809", ",7:1", " 7:1",
        ]
        for broken in broken {
            #expect(read(broken) == nil, "\(broken)")
        }
    }
}
