import Foundation
import Synchronization
import TripsDomain

@testable import TripsStore

/// The writers of `PostgresConcurrentHistoryLiveTests`: a fixed mix of changes per writer, and
/// If-Match races between two stores, each answer recorded in a `WriteLog`.
enum ConcurrentWriters {
    static let stepsPerWriter = 30
    static let raceRounds = 8

    /// One writer's fixed mix of changes, all on trips of its own (so every one is planned to
    /// succeed, and to change something): a create at the end (a lone append, made in an append
    /// transaction when its batch holds only such), a favorite drop of it, a reorder of it to the
    /// front (or to the end when it is in front), a create in front of an anchor, another
    /// reorder, and a delete of its oldest trip.
    ///
    /// `midway` runs once half the steps are made (the fault of a test). With a log that
    /// tolerates refusals, a change refused by the database (`.storage`: one cut off, which may
    /// have been made) is counted, and the writer forgets its trips and starts again.
    static func write(
        on store: PostgresTripStore, named name: String, anchors: [Trip.ID], into log: WriteLog, midway: (@Sendable () -> Void)? = nil
    ) {
        var mine: [Trip.ID] = []
        for step in 0..<stepsPerWriter {
            if step == stepsPerWriter / 2 { midway?() }
            let change: (name: String, ids: [Trip.ID]?, plan: @Sendable (TripList) throws(MutationError) -> TripChange?)
            var readsNoList = false
            switch mine.isEmpty ? 0 : step % 6 {
            case 0, 3:
                let before = step % 6 == 3 ? anchors[step % anchors.count] : nil
                readsNoList = before == nil
                change = ("created", nil, { _ in .add([storageDraft("Writer \(name) \(step)")], before: before) })
            case 1:
                let newest = mine[mine.count - 1]
                change = ("favorites", [newest], { _ in .makeFavorites([newest]) })
            case 5:
                let oldest = mine[0]
                change = ("deleted", [oldest], { _ in .delete([oldest]) })
            default:
                let newest = mine[mine.count - 1]
                change = (
                    "reordered", [newest],
                    { (list: TripList) throws(MutationError) -> TripChange? in
                        var trips = list.trips.makeIterator()
                        guard let front = trips.next()?.id, front != newest else {
                            return .move(ReorderDifference(sources: [newest], destination: .end))
                        }
                        return .move(ReorderDifference(sources: [newest], destination: .before(front)))
                    }
                )
            }
            let result = mutateWaiting(store, readsNoList: readsNoList, change.plan)
            if case .failure(.storage) = result, log.toleratesRefusals {
                log.refused()
                mine.removeAll()
                continue
            }
            guard case .success(let made) = result, made.outcome.map(Self.changedSomething) == true else {
                log.fail("writer \(name), step \(step) (\(change.name)): \(result)")
                continue
            }
            var ids = change.ids ?? []
            if case .added(let trips)? = made.outcome {
                ids = trips.map(\.id)
                mine.append(contentsOf: ids)
            }
            if change.name == "deleted" { mine.removeFirst() }
            log.acknowledge(AcknowledgedChange(revision: made.revision, name: change.name, ids: ids))
        }
    }

    /// Rounds of the same conditional replace of `trip` (If-Match: the version the last round
    /// left) sent to both stores of `pair` at once: one must win, the other be refused.
    static func race(on pair: [PostgresTripStore], for trip: Trip.ID, from version: UInt64, into log: WriteLog) {
        var version = version
        for round in 0..<raceRounds {
            let results = Mutex<[Result<Mutation, MutationError>]>([])
            let start = DispatchSemaphore(value: 0)
            let finished = DispatchGroup()
            for (index, store) in pair.enumerated() {
                finished.enter()
                Thread { [version] in
                    start.wait()
                    let result = mutateWaiting(store) { (list) throws(MutationError) in
                        guard list.version(of: trip) == version else { throw .preconditionFailed }
                        return .replace(trip, storageDraft("Race \(trip) \(round) \(index)"))
                    }
                    results.withLock { $0.append(result) }
                    finished.leave()
                }
                .start()
            }
            start.signal()
            start.signal()
            finished.wait()
            let all = results.withLock { $0 }
            let won = all.compactMap { try? $0.get() }
            let refused = all.filter { if case .failure(.preconditionFailed) = $0 { true } else { false } }
            guard won.count == 1, refused.count == 1, let winner = won.first, winner.tripVersion == winner.revision else {
                log.fail("race on trip \(trip), round \(round): \(all)")
                return
            }
            log.acknowledge(AcknowledgedChange(revision: winner.revision, name: "updated", ids: [trip]), raceWon: true)
            version = winner.revision
        }
    }

    /// Whether an outcome says the change changed the list (one that did not is not in the history).
    static func changedSomething(_ outcome: TripChangeOutcome) -> Bool {
        switch outcome {
        case .listChanged(let changed): changed
        case .addedFavorites(let added): !added.isEmpty
        case .added(let trips): !trips.isEmpty
        case .trip: true
        }
    }
}

/// What the writers were answered, from every thread.
final class WriteLog: Sendable {
    /// Whether a change the database refused is expected (`ConcurrentWriters.write`), not a failure.
    let toleratesRefusals: Bool
    private let state = Mutex<(acknowledged: [AcknowledgedChange], failures: [String], racesWon: Int, refused: Int)>(([], [], 0, 0))

    init(toleratingRefusals: Bool = false) { toleratesRefusals = toleratingRefusals }

    func acknowledge(_ change: AcknowledgedChange, raceWon: Bool = false) {
        state.withLock {
            $0.acknowledged.append(change)
            if raceWon { $0.racesWon += 1 }
        }
    }

    func fail(_ description: String) { state.withLock { $0.failures.append(description) } }
    func refused() { state.withLock { $0.refused += 1 } }

    var acknowledged: [AcknowledgedChange] { state.withLock { $0.acknowledged } }
    var failures: [String] { state.withLock { $0.failures } }
    var racesWon: Int { state.withLock { $0.racesWon } }
    /// How many changes the database refused (each maybe made all the same).
    var refusals: Int { state.withLock { $0.refused } }
}
