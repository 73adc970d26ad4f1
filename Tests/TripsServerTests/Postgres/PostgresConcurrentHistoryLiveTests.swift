import Foundation
import Synchronization
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// Three `PostgresTripStore`s on one database, as three instances behind a balancer, each with
/// two writers making a fixed mix of changes at once (creates, favorite drops, reorders of one
/// trip, deletes) while pairs of instances race conditional replaces of one trip. Then the
/// history is checked from every instance's feed and list (`ChangeHistoryAudit`): one order,
/// told whole and once by each instance, holding every acknowledged change at its revision,
/// replaying into the list every instance serves. README "PostgreSQL" says why that order holds.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresConcurrentHistoryLiveTests {
    static let instances = 3
    static let writersPerInstance = 2
    /// Five rounds of `write`'s six steps.
    static let stepsPerWriter = 30
    static let raceRounds = 8
    /// The trips the writers insert theirs in front of, and the two only racers replace.
    static let anchors = 4
    static let raced = 2

    @Test func concurrentWritersOnThreeInstancesMakeOneHistoryThatEveryInstanceTellsWhole() async throws {
        let (audit, lists, histories, races, failures) = try await onOwnThread {
            let database = try LiveDatabase.createDatabase(named: "trips_history")
            defer { database.drop() }
            let stores = try (0..<Self.instances).map { _ in
                try PostgresTripStore(connection: database.configuration, seedSamples: false)
            }
            defer { for store in stores { store.close() } }
            let feeds = stores.map(FeedRecorder.init)
            let log = WriteLog()

            let seeded = try mutateWaiting(stores[0]) { _ in
                .add((1...(Self.anchors + Self.raced)).map { storageDraft("Anchor \($0)") }, before: nil)
            }.get()
            guard case .added(let trips)? = seeded.outcome else { throw TestFailure("the seed added nothing") }
            log.acknowledge(AcknowledgedChange(revision: seeded.revision, name: "created", ids: trips.map(\.id)))
            let anchors = Array(trips.prefix(Self.anchors).map(\.id))

            let done = DispatchGroup()
            func run(_ body: @escaping @Sendable () -> Void) {
                done.enter()
                Thread {
                    body()
                    done.leave()
                }
                .start()
            }
            for (index, store) in stores.enumerated() {
                for writer in 0..<Self.writersPerInstance {
                    run { Self.write(on: store, named: "\(index)-\(writer)", anchors: anchors, into: log) }
                }
            }
            for (race, trip) in trips.suffix(Self.raced).enumerated() {
                let pair = [stores[race % Self.instances], stores[(race + 1) % Self.instances]]
                run { Self.race(on: pair, for: trip.id, from: seeded.revision, into: log) }
            }
            guard done.wait(timeout: .now() + .seconds(60 * TestTimeout.scale)) == .success else {
                throw TestFailure("the writers did not finish within a minute")
            }

            let acknowledged = log.acknowledged
            let last = acknowledged.map(\.revision).max() ?? 0
            for (instance, feed) in feeds.enumerated() where !feed.wait(through: last) {
                throw TestFailure("instance \(instance) never told revision \(last): it told \(feed.all.last?.revision ?? 0)")
            }
            return (
                ChangeHistoryAudit(feeds: feeds.map(\.all), acknowledged: acknowledged), stores.map(\.list),
                stores.map { store in store.withHistory { $0.all } }, log.racesWon, log.failures
            )
        }
        let expected = 1 + Self.instances * Self.writersPerInstance * Self.stepsPerWriter + Self.raced * Self.raceRounds
        #expect(failures.isEmpty, "every change was made as planned: \(failures)")
        #expect(races == Self.raced * Self.raceRounds, "of two racers on one If-Match, exactly one won, in every round")
        #expect(audit.acknowledged.count == expected)
        #expect(audit.feeds.map(\.count) == Array(repeating: expected, count: Self.instances))
        let (steps, divergence, unmatched, reused) = (
            audit.gapsAndDuplicates(), audit.divergence(), try audit.unacknowledgedOrMissing(), try audit.reusedIDs()
        )
        #expect(steps == [], "every feed told 1…n once each, in order")
        #expect(divergence == [], "every feed told the same order")
        #expect(unmatched == [], "the history is exactly the acknowledged changes")
        #expect(reused == [], "no id was issued twice")
        #expect(histories.allSatisfy { $0 == audit.feeds[0] }, "each store's history is what its feed told")
        let replayed = try audit.replayed()
        for (instance, list) in lists.enumerated() {
            #expect(list.revision == UInt64(expected))
            #expect(Array(list.trips) == replayed, "instance \(instance) serves the list the history replays into")
            let versions = list.trips.map { list.version(of: $0.id) }
            #expect(versions == lists[0].trips.map { lists[0].version(of: $0.id) }, "instance \(instance) gives the same ETags")
        }
    }

    /// One writer's fixed mix of changes, all on trips of its own (so every one is planned to
    /// succeed, and to change something): a create at the end, a favorite drop of it, a reorder
    /// of it to the front (or to the end when it is in front), a create in front of an anchor,
    /// another reorder, and a delete of its oldest trip.
    static func write(on store: PostgresTripStore, named name: String, anchors: [Trip.ID], into log: WriteLog) {
        var mine: [Trip.ID] = []
        for step in 0..<stepsPerWriter {
            let change: (name: String, ids: [Trip.ID]?, plan: @Sendable (TripList) throws(MutationError) -> TripChange?)
            switch mine.isEmpty ? 0 : step % 6 {
            case 0, 3:
                let before = step % 6 == 3 ? anchors[step % anchors.count] : nil
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
            let result = mutateWaiting(store, change.plan)
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
    private let state = Mutex<(acknowledged: [AcknowledgedChange], failures: [String], racesWon: Int)>(([], [], 0))

    func acknowledge(_ change: AcknowledgedChange, raceWon: Bool = false) {
        state.withLock {
            $0.acknowledged.append(change)
            if raceWon { $0.racesWon += 1 }
        }
    }

    func fail(_ description: String) { state.withLock { $0.failures.append(description) } }

    var acknowledged: [AcknowledgedChange] { state.withLock { $0.acknowledged } }
    var failures: [String] { state.withLock { $0.failures } }
    var racesWon: Int { state.withLock { $0.racesWon } }
}
