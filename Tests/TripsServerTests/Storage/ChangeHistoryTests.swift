import Testing
import TripsDomain

@testable import TripsServer

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

    @Test func aFreshHistoryStartsAtTheListsRevision() {
        let fresh = ChangeHistory(capacity: 10, revision: 42)
        #expect(fresh.events(after: 42) == [])
        #expect(fresh.events(after: 41) == nil)
    }
}
