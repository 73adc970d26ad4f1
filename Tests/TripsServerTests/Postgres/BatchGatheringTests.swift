import Foundation
import Synchronization
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsStore

/// When the PostgreSQL store's writer holds a batch back for the writes of the clients its
/// last batch answered (`BatchGathering`), and for how long.
@Suite struct BatchGatheringTests {
    @Test func aWriterThatMetNoLockHoldsNothingBack() {
        var gathering = BatchGathering()
        let first = gathering.holdBack(queued: 0)
        #expect(first == nil, "no batch yet")
        gathering.committed(batchOf: 20, lockWait: .zero, replayed: 4, limit: .milliseconds(2))
        let unlocked = gathering.holdBack(queued: 0)
        #expect(unlocked == nil, "no wait for the lock")
        gathering.committed(batchOf: 20, lockWait: .milliseconds(1), replayed: 0, limit: .milliseconds(2))
        let alone = gathering.holdBack(queued: 0)
        #expect(alone == nil, "no other instance's change: the wait was the round trip, an instance alone")
        #expect(!gathering.isHoldingBack)
    }

    @Test func aBatchWaitsForAsManyWritesAsTheLastHadAtMostAsLongAsItsLockWait() {
        var gathering = BatchGathering()
        gathering.committed(batchOf: 3, lockWait: .microseconds(700), replayed: 4, limit: .milliseconds(2))
        let enough = gathering.holdBack(queued: 3)
        #expect(enough == nil, "as many queued already")
        let held = gathering.holdBack(queued: 1)
        #expect(held == .microseconds(700))
        #expect(gathering.isHoldingBack)
        let wakes = [2, 3, 4].map { gathering.arrived(queued: $0) }
        #expect(wakes == [false, true, false], "the third ends the wait, once")
        #expect(!gathering.isHoldingBack)

        gathering.committed(batchOf: 3, lockWait: .seconds(1), replayed: 4, limit: .milliseconds(2))
        let limited = gathering.holdBack(queued: 0)
        #expect(limited == .milliseconds(2), "the limit, whatever the lock's wait")
    }

    @Test func aWaitThatRunsOutTakesTheWakeOnlyWhenOneWasSent() {
        var gathering = BatchGathering()
        gathering.committed(batchOf: 2, lockWait: .milliseconds(1), replayed: 4, limit: .milliseconds(2))
        _ = gathering.holdBack(queued: 0)
        let nothingCame = gathering.gaveUp()
        let late = gathering.arrived(queued: 5)
        #expect(!nothingCame, "nothing arrived: no wake is coming")
        #expect(!late, "nor comes after")

        _ = gathering.holdBack(queued: 0)
        let arrived = gathering.arrived(queued: 2)
        let wakeSent = gathering.gaveUp()
        #expect(arrived)
        #expect(wakeSent, "the wake sent as the wait ran out is the writer's to take")
    }

    @Test func afterTheWriterSleptTheNextWriteIsNotHeldBack() {
        var gathering = BatchGathering()
        gathering.committed(batchOf: 30, lockWait: .milliseconds(1), replayed: 4, limit: .milliseconds(2))
        gathering.writerSlept()
        let held = gathering.holdBack(queued: 0)
        #expect(held == nil)
    }
}

/// The writer holding a batch back on the real server: the writes of the clients it waits
/// for join the batch, in one transaction.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresBatchGatheringLiveTests {
    @Test func aBatchHeldBackTakesTheWritesThatArriveMeanwhile() async throws {
        try await onOwnThread {
            let database = try LiveDatabase.createDatabase(named: "trips_gathering")
            defer { database.drop() }
            let patience = Duration.seconds(60 * TestTimeout.scale)
            let store = try PostgresTripStore(connection: database.configuration, seedSamples: false, batchPatience: patience)
            defer { store.close() }
            // As if the last transaction carried five writes after a long wait for the lock.
            store.state.withLock { $0.gathering.committed(batchOf: 5, lockWait: patience, replayed: 4, limit: patience) }

            let answered = DispatchGroup()
            let submit = { (city: String) in
                answered.enter()
                store.mutate({ _ in .add(storageDraft(city)) }) { _ in answered.leave() }
            }
            submit("First")
            guard yieldUntil({ store.state.withLock { $0.gathering.isHoldingBack } }) else {
                Issue.record("the writer did not hold the first write back")
                return
            }
            for index in 1...5 { submit("Joining \(index)") }
            #expect(answered.wait(timeout: .now() + .seconds(30 * TestTimeout.scale)) == .success)
            let transactions = store.state.withLock { $0.statistics.writeTransactions }
            #expect(transactions?.transactions == 1, "one transaction")
            #expect(transactions?.changes == 6)
            #expect(store.list.trips.map(\.city) == ["First"] + (1...5).map { "Joining \($0)" })
        }
    }
}
