import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

@Suite struct ChangeHistoryTests {
    private func history(capacity: Int, through revision: UInt64) -> ChangeHistory {
        var history = ChangeHistory(capacity: capacity, revision: 0)
        for number in stride(from: 1, through: revision, by: 1) {
            history.append(ChangeEvent(revision: number, name: "deleted", data: Array("\(number)".utf8)))
        }
        return history
    }

    @Test func resumingAtEachBoundary() {
        let kept = history(capacity: 3, through: 5)  // keeps 3, 4, 5
        #expect(kept.events(after: 5)?.map(\.revision) == [])  // up to date
        #expect(kept.events(after: 4)?.map(\.revision) == [5])  // inside the window
        #expect(kept.events(after: 2)?.map(\.revision) == [3, 4, 5])  // at its edge
        #expect(kept.events(after: 1) == nil)  // too old
        #expect(kept.events(after: 0) == nil)
        #expect(kept.events(after: 6) == nil)  // ahead of the list
        #expect(history(capacity: 10, through: 5).events(after: 0)?.map(\.revision) == [1, 2, 3, 4, 5])
        #expect(kept.all.map(\.revision) == [3, 4, 5])
    }

    @Test func largeEventsAreKeptOnlyUpToTheByteLimit() {
        var history = ChangeHistory(capacity: 100, byteLimit: 1_000, revision: 0)
        for number in 1...5 {
            history.append(ChangeEvent(revision: UInt64(number), name: "created", data: Array(repeating: UInt8(ascii: "x"), count: 400)))
        }
        #expect(history.all.map(\.revision) == [4, 5])  // 800 bytes; a third would make 1,200
        #expect(history.events(after: 3)?.map(\.revision) == [4, 5])
        #expect(history.events(after: 2) == nil)  // dropped: the client reads the list again
        history.append(ChangeEvent(revision: 6, name: "created", data: Array(repeating: UInt8(ascii: "x"), count: 5_000)))
        #expect(history.all.map(\.revision) == [6])  // the latest is kept even when it alone is too big
    }

    @Test func aLongRunKeepsExactlyTheLatestEvents() {
        let kept = history(capacity: 7, through: 5_000)
        #expect(kept.all.map(\.revision) == Array(4_994...5_000))
        #expect(kept.events(after: 4_993)?.count == 7)
        #expect(kept.events(after: 4_992) == nil)
    }

    @Test func aFreshHistoryStartsAtTheListsRevision() {
        let fresh = ChangeHistory(capacity: 10, revision: 42)
        #expect(fresh.events(after: 42) == [])
        #expect(fresh.events(after: 41) == nil)
    }

    /// Snapshots written before the change feed (format 1) have no events, and still load.
    @Test func aFormat1SnapshotStillLoads() throws {
        var bytes: [UInt8] = []
        RecordFrame.append(payload: Array(#"{"format":1,"journal":3,"revision":5,"lastIssuedID":2,"trips":1}"#.utf8), to: &bytes)
        var trip = JSONWriter()
        trip.appendRaw(#"{"version":4,"id":2,"#)
        trip.appendDraftMembers(TripList.samples[2]!.draft)
        trip.appendRaw("}")
        RecordFrame.append(payload: trip.bytes, to: &bytes)
        let snapshot = try Snapshot(bytes: bytes, file: "snapshot")
        #expect(snapshot.events.isEmpty)
        #expect(snapshot.list.revision == 5 && snapshot.journal == 3)
        #expect(snapshot.list[2]?.city == "Vancouver")
    }
}
