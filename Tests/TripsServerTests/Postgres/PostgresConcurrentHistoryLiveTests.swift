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
/// trip, deletes: `ConcurrentWriters`) while pairs of instances race conditional replaces of
/// one trip. Then the history is checked from every instance's feed and list
/// (`ChangeHistoryAudit`): one order, told whole and once by each instance, holding every
/// acknowledged change at its revision, replaying into the list every instance serves.
/// README "PostgreSQL" says why that order holds.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresConcurrentHistoryLiveTests {
    static let instances = 3
    static let writersPerInstance = 2
    /// The trips the writers insert theirs in front of, and the two only racers replace.
    static let anchors = 4
    static let raced = 2
    /// The changes the writers and racers make when none is refused, the seed's included.
    static let planned =
        1 + instances * writersPerInstance * ConcurrentWriters.stepsPerWriter + raced * ConcurrentWriters.raceRounds

    @Test func concurrentWritersOnThreeInstancesMakeOneHistoryThatEveryInstanceTellsWhole() async throws {
        let run = try await Self.run(endingSessionsMidway: false)
        #expect(run.log.failures.isEmpty, "every change was made as planned: \(run.log.failures)")
        #expect(
            run.log.racesWon == Self.raced * ConcurrentWriters.raceRounds, "of two racers on one If-Match, exactly one won, every round")
        #expect(run.audit.acknowledged.count == Self.planned)
        #expect(run.audit.feeds.map(\.count) == Array(repeating: Self.planned, count: Self.instances))
        #expect(run.appendTransactions > 0, "creates at the end were made in append transactions, between the others")
        try Self.expectOneHistory(run, allowingUnanswered: 0)
    }

    /// Every session of the database is ended (as a restart of PostgreSQL ends them) while the
    /// writers write, once half their changes are made, without the racers (whose rounds need
    /// an answer from both). Changes the database refused meanwhile are tolerated, and may be
    /// in the history unanswered (a `COMMIT` whose answer was cut off); every other check holds.
    @Test func endingEverySessionMidwayKeepsOneHistoryAndEveryAcknowledgedChange() async throws {
        let run = try await Self.run(endingSessionsMidway: true)
        #expect(run.sessionsEnded >= Self.instances, "the stores' sessions were ended")
        #expect(run.log.failures.isEmpty, "every change was made as planned, or refused by the database: \(run.log.failures)")
        #expect(run.audit.acknowledged.count + run.log.refusals == Self.planned - Self.raced * ConcurrentWriters.raceRounds)
        try Self.expectOneHistory(run, allowingUnanswered: run.log.refusals)
    }

    /// The checks of `ChangeHistoryAudit`, and each instance's list and history against them.
    static func expectOneHistory(_ run: HistoryRun, allowingUnanswered unanswered: Int) throws {
        let audit = run.audit
        let (steps, divergence, unmatched, reused) = (
            audit.gapsAndDuplicates(), audit.divergence(), try audit.unacknowledgedOrMissing(allowingUnanswered: unanswered),
            try audit.reusedIDs()
        )
        #expect(steps == [], "every feed told 1…n once each, in order")
        #expect(divergence == [], "every feed told the same order")
        #expect(unmatched == [], "the history is exactly the acknowledged changes")
        #expect(reused == [], "no id was issued twice")
        #expect(run.histories.allSatisfy { $0 == audit.feeds[0] }, "each store's history is what its feed told")
        let replayed = try audit.replayed()
        for (instance, list) in run.lists.enumerated() {
            #expect(list.revision == UInt64(audit.feeds[0].count))
            #expect(Array(list.trips) == replayed, "instance \(instance) serves the list the history replays into")
            let versions = list.trips.map { list.version(of: $0.id) }
            #expect(versions == run.lists[0].trips.map { run.lists[0].version(of: $0.id) }, "instance \(instance) gives the same ETags")
        }
    }

    /// What one run left, read before its stores closed.
    struct HistoryRun: Sendable {
        let audit: ChangeHistoryAudit
        let lists: [TripList]
        let histories: [[ChangeEvent]]
        let log: WriteLog
        /// How many sessions `endingSessionsMidway` ended.
        let sessionsEnded: Int
        /// How many append transactions the stores made (`PostgresTripTables.commitAppends`).
        let appendTransactions: UInt64
    }

    /// Seeds a new database through the first store, runs every writer (and, unless sessions
    /// are ended, the racers) at once, and waits until every store told the newest revision.
    static func run(endingSessionsMidway: Bool) async throws -> HistoryRun {
        try await onOwnThread {
            let database = try LiveDatabase.createDatabase(named: "trips_history")
            defer { database.drop() }
            let configuration = database.configuration
            let stores = try (0..<Self.instances).map { _ in try PostgresTripStore(connection: configuration, seedSamples: false) }
            defer { for store in stores { store.close() } }
            let feeds = stores.map(FeedRecorder.init)
            let log = WriteLog(toleratingRefusals: endingSessionsMidway)

            let seeded = try mutateWaiting(stores[0]) { _ in
                .add((1...(Self.anchors + Self.raced)).map { storageDraft("Anchor \($0)") }, before: nil)
            }.get()
            guard case .added(let trips)? = seeded.outcome else { throw TestFailure("the seed added nothing") }
            log.acknowledge(AcknowledgedChange(revision: seeded.revision, name: "created", ids: trips.map(\.id)))
            let anchors = Array(trips.prefix(Self.anchors).map(\.id))

            let ended = Mutex(0)
            let endSessions: @Sendable () -> Void = {
                guard let admin = try? LiveDatabase.connect() else { return }
                defer { admin.close() }
                let rows = try? admin.query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                    [configuration.database])
                ended.withLock { $0 = rows?.rows.filter { $0.first == "t" }.count ?? 0 }
            }
            let done = DispatchGroup()
            func start(_ body: @escaping @Sendable () -> Void) {
                done.enter()
                Thread {
                    body()
                    done.leave()
                }
                .start()
            }
            for (index, store) in stores.enumerated() {
                for writer in 0..<Self.writersPerInstance {
                    let midway = endingSessionsMidway && index == 0 && writer == 0 ? endSessions : nil
                    start { ConcurrentWriters.write(on: store, named: "\(index)-\(writer)", anchors: anchors, into: log, midway: midway) }
                }
            }
            for (race, trip) in trips.suffix(Self.raced).enumerated() where !endingSessionsMidway {
                let pair = [stores[race % Self.instances], stores[(race + 1) % Self.instances]]
                start { ConcurrentWriters.race(on: pair, for: trip.id, from: seeded.revision, into: log) }
            }
            guard done.wait(timeout: .now() + .seconds(60 * TestTimeout.scale)) == .success else {
                throw TestFailure("the writers did not finish within a minute")
            }

            // The newest revision, also of a change made but not answered: what a new store loads.
            let newest = try PostgresTripStore(connection: configuration, seedSamples: false)
            let last = newest.list.revision
            newest.close()
            for (instance, feed) in feeds.enumerated() where !feed.wait(through: last) {
                throw TestFailure("instance \(instance) never told revision \(last): it told \(feed.all.last?.revision ?? 0)")
            }
            return HistoryRun(
                audit: ChangeHistoryAudit(feeds: feeds.map(\.all), acknowledged: log.acknowledged), lists: stores.map(\.list),
                histories: stores.map { store in store.withHistory { $0.all } }, log: log, sessionsEnded: ended.withLock { $0 },
                appendTransactions: stores.reduce(0) { $0 + ($1.statistics.store.writeTransactions?.appendTransactions ?? 0) })
        }
    }
}
