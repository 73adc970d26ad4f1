import Foundation
import Synchronization
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// Two `PostgresTripStore`s on one database stand for two instances of the server behind a
/// balancer. Each test has a database of its own, dropped at the end.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresTripStoreLiveTests {
    /// Runs `body` with the configuration of a new, empty database, then drops the database.
    private func inFreshDatabase<T: Sendable>(_ body: @escaping @Sendable (PostgresConnectionConfiguration) throws -> T) async throws -> T {
        try await onOwnThread {
            let database = try LiveDatabase.createDatabase(named: "trips_store")
            defer { database.drop() }
            return try body(database.configuration)
        }
    }

    @Test func aChangeOnOneInstanceReachesTheOthersListAndFeed() async throws {
        try await inFreshDatabase { configuration in
            let first = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { first.close() }
            let second = try PostgresTripStore(connection: configuration, seedSamples: false, pollInterval: .seconds(30))
            defer { second.close() }
            let heard = DispatchSemaphore(value: 0)
            let events = Mutex<[ChangeEvent]>([])
            second.setChangeListener { event in
                events.withLock { $0.append(event) }
                heard.signal()
            }
            let created = mutateWaiting(first) { _ in .add(storageDraft("Lisbon")) }
            let revision = try created.get().revision
            // Well under the poll interval: the notification, not the polling, brought it.
            #expect(heard.wait(timeout: .now() + .seconds(10 * TestTimeout.scale)) == .success)
            #expect(events.withLock { $0.map(\.revision) } == [revision])
            #expect(events.withLock { $0.first?.name } == "created")
            #expect(second.list == first.list)
            #expect(second.withHistory { $0.all } == first.withHistory { $0.all })
        }
    }

    @Test func anInstanceThatMissedMoreThanItsHistoryHoldsTellsItsFeedToReset() async throws {
        let database = try await onOwnThread { try LiveDatabase.createDatabase(named: "trips_store") }
        defer { database.drop() }
        let configuration = database.configuration
        let store = try await onOwnThread {
            try PostgresTripStore(connection: configuration, configuration: StorageConfiguration(historyCapacity: 5))
        }
        let api = try await APIServer(store: store, mode: .live, cleanUp: { store.close() })
        defer { api.stop() }
        try await onOwnThread {
            let revision = store.list.revision
            let stream = try TestClient(port: api.port)
            try stream.send("GET /trips/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
            _ = try stream.readUntil("retry: 2000\n\n")
            // Waiting for the change after `revision`, or (if it comes in late) finding it gone.
            let poll = try TestClient(port: api.port)
            try poll.send("GET /trips/changes?since=\(revision)&wait=30 HTTP/1.1\r\nHost: localhost\r\n\r\n")

            // Another instance makes twenty changes in one transaction: more than the history holds.
            let other = PostgresTripTables(connection: try PostgresConnection.connect(configuration))
            defer { other.connection.close() }
            var state = try other.load(historyCapacity: 100, ledger: IdempotencyLedger())
            _ = try other.commit((1...20).map { n in ChangeRequest { _ in .add(storageDraft("City \(n)")) } }, to: &state)

            var reset = try stream.readUntil("\n\n")
            while reset.hasSuffix(": keep-alive\n\n") { reset = try stream.readUntil("\n\n") }
            #expect(reset.hasSuffix("id: \(revision + 20)\nevent: reset\ndata: {\"revision\":\(revision + 20)}\n\n"))
            let gone = try poll.readUntil("}")
            #expect(gone.hasPrefix("HTTP/1.1 410 "))
            #expect(gone.contains("Trips-Revision: \(revision + 20)"))
            #expect(store.list == state.list)
        }
    }

    @Test func theWriterPrunesChangesPastTheRetention() async throws {
        try await inFreshDatabase { configuration in
            let store = try PostgresTripStore(connection: configuration, seedSamples: false, retention: PostgresRetention(changes: 10))
            for n in 1...26 { _ = try mutateWaiting(store) { _ in .add(storageDraft("City \(n)")) }.get() }
            // Pruned in the background as changes came, one pruning at a time: a change made
            // while one runs starts none, so how many ran depends on the host's speed (one that
            // ran early and long may have pruned nothing). Once the one under way is done, a
            // pruning on the newest revision is certain: this one, or one the writer started.
            store.pruning.wait()
            store.pruneIfDue()
            store.close()  // waits for it
            let connection = try PostgresConnection.connect(configuration)
            defer { connection.close() }
            let kept = try connection.query("SELECT min(revision), max(revision), count(*) FROM trip_changes").rows[0].map { Int($0 ?? "") }
            #expect(kept == [17, 26, 10], "only the newest 10 changes are kept: \(kept)")
        }
    }

    @Test func conditionalChangesRacingOnTwoInstancesLetExactlyOneWin() async throws {
        try await inFreshDatabase { configuration in
            let stores = [
                try PostgresTripStore(connection: configuration, seedSamples: false),
                try PostgresTripStore(connection: configuration, seedSamples: false),
            ]
            defer { for store in stores { store.close() } }
            _ = try mutateWaiting(stores[0]) { _ in .add(storageDraft("Lisbon")) }.get()
            let results = Mutex<[Result<Mutation, MutationError>]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let result = mutateWaiting(stores[index]) { (list) throws(MutationError) in
                    guard list.version(of: 1) == 1 else { throw .preconditionFailed }  // If-Match: the first version
                    return .replace(1, storageDraft("Winner \(index)"))
                }
                results.withLock { $0.append(result) }
            }
            let all = results.withLock { $0 }
            #expect(all.filter { (try? $0.get()) != nil }.count == 1)
            #expect(all.filter { if case .failure(.preconditionFailed) = $0 { true } else { false } }.count == 1)
        }
    }

    @Test func anIdempotencyKeyUsedOnOneInstanceReplaysOnTheOther() async throws {
        try await inFreshDatabase { configuration in
            let first = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { first.close() }
            let second = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { second.close() }
            let key = IdempotencyRequest(
                key: IdempotencyLedger.Key(scope: "", key: "k-1"), fingerprint: "POST /trips Lisbon", now: Int64(time(nil))
            ) { mutation in
                StoredAnswer(status: 201, fields: ["Trips-Revision": "\(mutation.revision)"], content: .body(Array("created".utf8)))
            }
            let made = try mutateWaiting(first, idempotency: key) { _ in .add(storageDraft("Lisbon")) }.get()
            let again = try mutateWaiting(second, idempotency: key) { _ in .add(storageDraft("Lisbon")) }.get()
            #expect(again.answer == made.answer)
            #expect(again.answer?.fields["Trips-Revision"] == "1")
            #expect(second.list.count == 1)
            let other = IdempotencyRequest(
                key: IdempotencyLedger.Key(scope: "", key: "k-1"), fingerprint: "POST /trips Porto", now: key.now
            ) { _ in nil }
            guard case .failure(.idempotencyConflict) = mutateWaiting(second, idempotency: other, { _ in .add(storageDraft("Porto")) })
            else {
                Issue.record("a key reused for another request must be refused")
                return
            }
        }
    }

    /// Defence in depth behind the API's own refusal of U+0000: a value the wire encoder
    /// cannot send (here an idempotency key holding U+0000) refuses its own change, never the
    /// others of its transaction, and the store stays ready. Refused, the change keeps no key:
    /// a retry is judged afresh, not told that the first is still in flight.
    @Test func aValueTheEncoderRefusesFailsOnlyItsChange() async throws {
        let (all, retry, writeFailure, cities, reopenedCities) = try await inFreshDatabase { configuration in
            let store = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { store.close() }
            let results = Mutex<[Int: Result<Mutation, MutationError>]>([:])
            let done = DispatchGroup()
            func submit(
                _ index: Int, idempotency: IdempotencyRequest? = nil,
                _ plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange?
            ) {
                done.enter()
                store.mutate(plan, idempotency: idempotency) { result in
                    results.withLock { $0[index] = result }
                    done.leave()
                }
            }
            // The first write holds the writer in its plan while the next two queue: those two
            // are made in one transaction.
            let planning = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            submit(0) { _ in
                planning.signal()
                release.wait()
                return .add(storageDraft("Lisbon"))
            }
            planning.wait()
            let unsendable = IdempotencyRequest(
                key: IdempotencyLedger.Key(scope: "", key: "k\u{0}1"), fingerprint: "POST /trips Porto", now: Int64(time(nil))
            ) { _ in
                StoredAnswer(status: 201, fields: [:], content: .body(Array("created".utf8)))
            }
            submit(1, idempotency: unsendable) { _ in .add(storageDraft("Porto")) }
            submit(2) { _ in .add(storageDraft("Oslo")) }
            release.signal()
            done.wait()
            let retry = mutateWaiting(store, idempotency: unsendable) { _ in .add(storageDraft("Porto")) }

            let reopened = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { reopened.close() }
            return (results.withLock { $0 }, retry, store.writeFailure, store.list.trips.map(\.city), reopened.list.trips.map(\.city))
        }
        guard case .failure(.rejected(.invalidBody)) = all[1] else {
            Issue.record("the change with the unsendable key must be refused alone: \(String(describing: all[1]))")
            return
        }
        guard case .failure(.rejected(.invalidBody)) = retry else {
            Issue.record("a retry of the refused change must be refused again: \(retry)")
            return
        }
        #expect((try? all[0]?.get()) != nil)
        #expect((try? all[2]?.get()) != nil)
        #expect(writeFailure == nil)
        #expect(cities == ["Lisbon", "Oslo"])
        #expect(reopenedCities == ["Lisbon", "Oslo"])
    }

    @Test func whileTheDatabaseRefusesConnectionsTheStoreSaysSoAndRecoversAfter() async throws {
        try await inFreshDatabase { configuration in
            let log = SignallingLog()
            let store = try PostgresTripStore(connection: configuration, seedSamples: false, retryDelay: .milliseconds(5), log: log)
            defer { store.close() }
            let admin = try LiveDatabase.connect()
            defer { admin.close() }
            // The database takes no new sessions, and the store's are ended: as if it were down.
            _ = try admin.query("ALTER DATABASE \(configuration.database) ALLOW_CONNECTIONS false")  // a name made here
            _ = try admin.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [configuration.database])
            #expect(log.wait(for: "changes are refused until it is back"))
            #expect(store.writeFailure != nil)  // /readyz: not ready
            guard case .failure(.storage(.database)) = mutateWaiting(store, { _ in .add(storageDraft("Lisbon")) }) else {
                Issue.record("a change while the database is down must fail")
                return
            }

            _ = try admin.query("ALTER DATABASE \(configuration.database) ALLOW_CONNECTIONS true")
            #expect(log.wait(for: "can be reached again"))
            let made = mutateWaiting(store) { _ in .add(storageDraft("Porto")) }
            #expect((try? made.get())?.revision == 1)
            #expect(store.writeFailure == nil)
        }
    }

    @Test func writesArrivingWhileATransactionWaitsForTheLockAreMadeInIt() async throws {
        try await inFreshDatabase { configuration in
            let store = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { store.close() }
            // Another session holds the state row every write locks first.
            let holder = try PostgresConnection.connect(configuration)
            defer { holder.close() }
            try holder.simpleQuery("BEGIN; SELECT 1 FROM trips_state FOR UPDATE")
            let answered = DispatchGroup()
            let made = Mutex<[String: Result<Mutation, MutationError>]>([:])
            let add = { (city: String) in
                answered.enter()
                store.mutate({ _ in .add(storageDraft(city)) }, idempotency: nil) { result in
                    made.withLock { $0[city] = result }
                    answered.leave()
                }
            }
            add("Lisbon")
            // Watched from a session outside any transaction, which sees pg_stat_activity anew.
            let watcher = try PostgresConnection.connect(configuration)
            defer { watcher.close() }
            let waiters = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            while try watcher.query(waiters).rows.first?.first == "0" {}
            add("Porto")  // the writer's transaction for Lisbon waits for the lock
            add("Braga")
            try holder.simpleQuery("COMMIT")
            #expect(answered.wait(timeout: .now() + .seconds(10 * TestTimeout.scale)) == .success)
            #expect(made.withLock { $0.values.allSatisfy { (try? $0.get()) != nil } })
            #expect(store.list.trips.map(\.city) == ["Lisbon", "Porto", "Braga"])
            // One transaction wrote the three changes' rows.
            #expect(try watcher.query("SELECT count(DISTINCT xmin::text) FROM trip_changes").rows == [["1"]])
        }
    }

    /// A write transaction that replays another instance's changes publishes them as soon as
    /// it has read them: they are committed already, and the feed does not wait for this
    /// transaction's own writes and flush (here held up by a row lock until the event came).
    @Test func changesAWriteCatchesUpOnReachTheFeedBeforeItsOwnCommit() async throws {
        try await inFreshDatabase { configuration in
            let first = try PostgresTripStore(connection: configuration, seedSamples: false, pollInterval: .seconds(30))
            defer { first.close() }
            let second = try PostgresTripStore(connection: configuration, seedSamples: false, pollInterval: .seconds(30))
            defer { second.close() }
            let faro = try #require(try? mutateWaiting(first) { _ in .add([storageDraft("Faro")], before: nil) }.get())
            let heard = DispatchSemaphore(value: 0)
            first.setChangeListener { event in if event.revision == faro.revision + 1 { heard.signal() } }

            // Faro's row, which the first instance's write changes, is held by another session;
            // the state row too, until both writes wait for it, the second instance's first.
            let rowHolder = try PostgresConnection.connect(configuration)
            defer { rowHolder.close() }
            try rowHolder.simpleQuery("BEGIN; SELECT 1 FROM trips FOR UPDATE")
            let stateHolder = try PostgresConnection.connect(configuration)
            defer { stateHolder.close() }
            try stateHolder.simpleQuery("BEGIN; SELECT 1 FROM trips_state FOR UPDATE")
            let watcher = try PostgresConnection.connect(configuration)
            defer { watcher.close() }
            let waiters = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            let answered = DispatchGroup()
            answered.enter()
            second.mutate({ _ in .add([storageDraft("Lisbon")], before: nil) }, idempotency: nil) { _ in answered.leave() }
            while try watcher.query(waiters).rows.first?.first != "1" {}
            let renamed = Mutex<Result<Mutation, MutationError>?>(nil)
            answered.enter()
            first.mutate({ _ in .replace(1, storageDraft("Faro, renamed")) }, idempotency: nil) { result in
                renamed.withLock { $0 = result }
                answered.leave()
            }
            while try watcher.query(waiters).rows.first?.first != "2" {}
            try stateHolder.simpleQuery("COMMIT")

            // Lisbon commits; the first instance's transaction reads it and waits for Faro's row.
            #expect(heard.wait(timeout: .now() + .seconds(10 * TestTimeout.scale)) == .success)
            #expect(first.list.trips.map(\.city) == ["Faro", "Lisbon"])
            #expect(renamed.withLock { $0 } == nil)

            try rowHolder.simpleQuery("ROLLBACK")
            #expect(answered.wait(timeout: .now() + .seconds(10 * TestTimeout.scale)) == .success)
            #expect(renamed.withLock { (try? $0?.get())?.revision } == faro.revision + 2)
            #expect(first.list.trips.map(\.city) == ["Faro, renamed", "Lisbon"])
            #expect(first.withHistory { $0.all.map(\.revision) } == [faro.revision, faro.revision + 1, faro.revision + 2])
        }
    }

    @Test func aTransactionThatLosesARaceForALockIsRetriedAndThenMade() async throws {
        try await inFreshDatabase { configuration in
            let admin = try LiveDatabase.connect()
            defer { admin.close() }
            // Waits for a lock give up after 200 ms (55P03), for every new session on the database.
            _ = try admin.query("ALTER DATABASE \(configuration.database) SET lock_timeout = '200ms'")  // a name made here
            let log = SignallingLog()
            let store = try PostgresTripStore(connection: configuration, seedSamples: false, log: log)
            defer { store.close() }
            // Another session holds the state row every write locks first.
            let holder = try PostgresConnection.connect(configuration)
            defer { holder.close() }
            try holder.simpleQuery("BEGIN; SELECT 1 FROM trips_state FOR UPDATE")
            let made = Mutex<Result<Mutation, MutationError>?>(nil)
            let done = DispatchSemaphore(value: 0)
            store.mutate({ _ in .add(storageDraft("Lisbon")) }, idempotency: nil) { result in
                made.withLock { $0 = result }
                done.signal()
            }
            #expect(log.wait(for: "retrying, attempt 2 of 3"))
            try holder.simpleQuery("COMMIT")
            done.wait()
            #expect(made.withLock { (try? $0?.get())?.revision } == 1)
            #expect(store.writeFailure == nil)

            // Held through every attempt: refused with 503, as the database cannot serve it now.
            try holder.simpleQuery("BEGIN; SELECT 1 FROM trips_state FOR UPDATE")
            guard case .failure(.storage(.database)) = mutateWaiting(store, { _ in .add(storageDraft("Porto")) }) else {
                Issue.record("three lost races must refuse the change as unavailable")
                return
            }
            try holder.simpleQuery("ROLLBACK")
        }
    }

    @Test func aStatementTheDatabaseRefusesForGoodIsAFault() async throws {
        try await inFreshDatabase { configuration in
            let store = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { store.close() }
            let admin = try PostgresConnection.connect(configuration)
            defer { admin.close() }
            try admin.simpleQuery("DROP TABLE trip_idempotency_keys")
            let keyed = IdempotencyRequest(key: IdempotencyLedger.Key(scope: "", key: "k-1"), fingerprint: "f", now: 1_800_000_000) { _ in
                StoredAnswer(status: 201, fields: [:], content: .body([]))
            }
            guard case .failure(.storage(.databaseFault)) = mutateWaiting(store, idempotency: keyed, { _ in .add(storageDraft("Lisbon")) })
            else {
                Issue.record("a missing table is a fault (500), not a 503")
                return
            }
            #expect(store.list.count == 0)
            // Writes that need no key still work.
            #expect((try? mutateWaiting(store) { _ in .add(storageDraft("Porto")) }.get())?.revision == 1)
        }
    }

    /// The writer changes its copy of the state in place before `COMMIT`. A `COMMIT` that fails
    /// then (here a deferred trigger refuses every change) must leave nothing of the changes:
    /// reads, the feed, the idempotency keys and the next transaction see what committed, and
    /// the list is the one a new store loads.
    @Test func aCommitThatFailsAfterTheChangesWereMadeInMemoryLeavesWhatCommitted() async throws {
        try await inFreshDatabase { configuration in
            let store = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { store.close() }
            let feed = FeedRecorder(store)
            _ = try mutateWaiting(store) { _ in .add([storageDraft("Lisbon"), storageDraft("Porto")], before: nil) }.get()
            let admin = try PostgresConnection.connect(configuration)
            defer { admin.close() }
            try admin.simpleQuery(
                """
                CREATE FUNCTION refuse_changes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
                CREATE CONSTRAINT TRIGGER refuse_changes AFTER INSERT ON trip_changes
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_changes()
                """)
            let committed = (list: store.list, history: store.withHistory { $0.all })
            let keyed = IdempotencyRequest(key: IdempotencyLedger.Key(scope: "", key: "k-1"), fingerprint: "f", now: 1_800_000_000) { _ in
                StoredAnswer(status: 200, fields: [:], content: .body([]))
            }
            let doomed: [TripChange] = [
                .replace(1, storageDraft("Braga")), .add([storageDraft("Sines"), storageDraft("Faro")], before: 2),
                .setFavorite(2, true), .move(ReorderDifference(sources: [2], destination: .before(1))), .delete([1]),
            ]
            for change in doomed {
                let key = change == doomed[0] ? keyed : nil
                guard case .failure(.storage(.databaseFault)) = mutateWaiting(store, idempotency: key, { _ in change }) else {
                    Issue.record("\(change): the refused COMMIT is a fault")
                    continue
                }
                #expect(store.list == committed.list && Array(store.list.trips) == Array(committed.list.trips), "\(change)")
                #expect(store.withHistory { $0.all } == committed.history)
            }
            try admin.simpleQuery("DROP TRIGGER refuse_changes ON trip_changes")
            // The key is free again, the ids the refused creates took are issued now, once.
            #expect((try? mutateWaiting(store, idempotency: keyed) { _ in .replace(1, storageDraft("Braga")) }.get())?.revision == 2)
            let made = try mutateWaiting(store) { _ in .add([storageDraft("Sines"), storageDraft("Faro")], before: 2) }.get()
            #expect(made.revision == 3)
            #expect(feed.all.map(\.revision) == [1, 2, 3])
            let loaded = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { loaded.close() }
            #expect(Array(loaded.list.trips) == Array(store.list.trips))
            #expect(loaded.list == store.list)
            #expect(loaded.withHistory { $0.all } == store.withHistory { $0.all })
            #expect(store.list.trips.map(\.id) == [1, 3, 4, 2])
        }
    }

    @Test func aStoreStartsFromWhatTheDatabaseHolds() async throws {
        try await inFreshDatabase { configuration in
            let first = try PostgresTripStore(connection: configuration, seedSamples: false)
            for change in [TripChange.add(TripList.samples.trips.map(\.draft), before: nil)] + everyKindOfChange {
                _ = try mutateWaiting(first) { _ in change }.get()
            }
            let expected = first.list
            let history = first.withHistory { $0.all }
            first.close()
            let restarted = try PostgresTripStore(connection: configuration, seedSamples: false)
            defer { restarted.close() }
            #expect(restarted.list == expected)
            #expect(restarted.withHistory { $0.all } == history)
        }
    }

    /// After a restart (here: every session ended, as a restart ends them), the pool's idle
    /// connections are dead. The first write meets one, which says the server ended it
    /// (57P01) before anything of the write ran: the write is made again on a new connection,
    /// and the other idle connections are dropped with it, so no write is refused.
    @Test func aWriteOnAConnectionTheServerEndedIsMadeOnANewOne() async throws {
        try await inFreshDatabase { configuration in
            let store = try PostgresTripStore(connection: configuration, seedSamples: false, retryDelay: .zero)
            defer { store.close() }
            _ = try mutateWaiting(store) { _ in .add(storageDraft("Lisbon")) }.get()
            let admin = try LiveDatabase.connect()
            defer { admin.close() }
            for round in 2...4 {
                _ = try admin.query(
                    "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                    [configuration.database])
                let made = mutateWaiting(store) { _ in .add(storageDraft("Porto \(round)")) }
                #expect((try? made.get())?.revision == UInt64(round), "round \(round): \(made)")
            }
            #expect(store.list.count == 4)
        }
    }
}

/// A log a test can wait on: `wait(for:)` returns once a line holding the text was logged
/// (or false after ten seconds, so a broken store fails the test instead of hanging it).
private final class SignallingLog: StorageLog {
    private let lines = Mutex<[String]>([])
    private let logged = DispatchSemaphore(value: 0)

    func warning(_ message: String) { add(message) }
    func info(_ message: String) { add(message) }

    private func add(_ line: String) {
        lines.withLock { $0.append(line) }
        logged.signal()
    }

    func wait(for text: String) -> Bool {
        let deadline = DispatchTime.now() + .seconds(10 * TestTimeout.scale)
        while !lines.withLock({ $0.contains { $0.contains(text) } }) {
            guard logged.wait(timeout: deadline) == .success else { return false }
        }
        return true
    }
}
