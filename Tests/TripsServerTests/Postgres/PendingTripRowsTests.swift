import Testing
import TripsDomain

@testable import TripsStore

/// The rows a transaction writes at its end (`PendingTripRows`): each trip in one kind of
/// statement, the one its changes need.
@Suite struct PendingTripRowsTests {
    @Test func aTripIsWrittenByTheOneStatementItsChangesNeed() {
        var rows = PendingTripRows()
        rows.add([10, 11])
        rows.place([10, 3, 4, 5])  // 10 is new: its insert has the key
        rows.change([4])  // moved and changed: every column
        rows.place([4, 6])
        rows.change([7])
        rows.delete([5, 11])  // 11 added in this transaction: no row to delete
        #expect(rows.added == [10, 11])
        #expect(rows.changed == [4, 7])
        #expect(rows.moved == [3, 5, 6])  // 5's row goes with the delete: `write` skips trips the list lacks
        #expect(rows.deleted == [5])
    }
}
