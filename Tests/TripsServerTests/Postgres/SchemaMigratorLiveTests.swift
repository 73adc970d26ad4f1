import Foundation
import Synchronization
import Testing
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// Migrations against the real server, each test in a schema of its own (first on the search
/// path, so the migrations' tables land there), dropped at the end.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct SchemaMigratorLiveTests {
    /// Every migration's version, in order.
    private static let versions = TripsSchema.migrations.map(\.version)

    @Test func twoInstancesStartingTogetherMigrateOnce() async throws {
        let (first, second, versions, tables) = try await inFreshSchema(named: "trips_migrations") { schema in
            let results = MigrationResults()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                results.set(index, Result { try SchemaMigrator.migrate(try LiveDatabase.connect(to: schema)) })
            }
            let connection = try LiveDatabase.connect(to: schema)
            defer { connection.close() }
            let versions = try connection.query("SELECT version FROM trips_schema_migrations ORDER BY version").rows
            let tables = try connection.query(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", [schema]
            ).rows
            return (try results.get(0), try results.get(1), versions, tables)
        }
        #expect([first, second].sorted { $0.count < $1.count } == [[], Self.versions], "one migrates, the other finds it done")
        #expect(versions == Self.versions.map { [String($0)] })
        #expect(tables == [["6"]])  // five tables and the migrations table
    }

    /// Version 3 gives every key a scope: a key row written before it (no scope, its answer
    /// with a body, an FNV fingerprint) loads after the migration, in the scope of no token.
    @Test func keyRowsWrittenBeforeScopesLoadAfterTheMigration() async throws {
        let ledger = try await inFreshSchema(named: "trips_migrations") { schema in
            let connection = try LiveDatabase.connect(to: schema)
            defer { connection.close() }
            _ = try SchemaMigrator.migrate(connection, to: Array(TripsSchema.migrations.prefix(2)))
            let use = #"{"key":"k-old","fingerprint":"1f2e-12","at":1800000000,"status":201,"fields":{"Location":"/trips/7"},"body":"{}"}"#
            _ = try connection.query("INSERT INTO trip_idempotency_keys (key, use, used_at) VALUES ('k-old', $1, 1800000000)", [use])
            #expect(try SchemaMigrator.migrate(connection) == [3, 4, 5])
            return try PostgresTripTables(connection: connection).load(historyCapacity: 10, ledger: IdempotencyLedger()).ledger
        }
        #expect(
            ledger.lookup(IdempotencyLedger.Key(scope: "", key: "k-old"), fingerprint: "1f2e-12")
                == .replay(
                    StoredAnswer(status: 201, fields: ["Location": "/trips/7"], content: .body(Array("{}".utf8)))))
    }

    @Test func aDatabaseANewerServerMigratedIsRefused() async throws {
        let error = try await inFreshSchema(named: "trips_migrations") { schema in
            let connection = try LiveDatabase.connect(to: schema)
            defer { connection.close() }
            _ = try SchemaMigrator.migrate(connection)
            _ = try connection.query("INSERT INTO trips_schema_migrations (version, name) VALUES (99, 'from the future')")
            do throws(SchemaMigrationError) {
                _ = try SchemaMigrator.migrate(connection)
                return nil as SchemaMigrationError?
            } catch {
                return error
            }
        }
        guard case .newerSchema(found: 99, known: Self.versions.last)? = error else {
            Issue.record("expected newerSchema(99, \(Self.versions.last ?? 0)), got \(String(describing: error))")
            return
        }
    }

    @Test func aFailingMigrationLeavesNothingOfTheRun() async throws {
        let (failure, tablesAfterFailure, appliedAfterwards) = try await inFreshSchema(named: "trips_migrations") { schema in
            let connection = try LiveDatabase.connect(to: schema)
            defer { connection.close() }
            let broken =
                TripsSchema.migrations + [
                    SchemaMigration(version: Self.versions.count + 1, name: "broken", sql: "CREATE TABLE trips (id int)")
                ]
            var failure: SchemaMigrationError?
            do throws(SchemaMigrationError) {
                _ = try SchemaMigrator.migrate(connection, to: broken)
            } catch {
                failure = error
            }
            let tables = try connection.query(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", [schema]
            ).rows
            return (failure, tables, try SchemaMigrator.migrate(connection))
        }
        guard case .migrationFailed(version: Self.versions.count + 1, name: "broken", let error)? = failure else {
            Issue.record("expected the broken migration to fail, got \(String(describing: failure))")
            return
        }
        #expect(error.serverError?.sqlState == SQLState(rawValue: "42P07"), "duplicate table")
        #expect(tablesAfterFailure == [["0"]])
        #expect(appliedAfterwards == Self.versions)
    }
}

/// The two concurrent migrations' answers, written from two threads.
private final class MigrationResults: Sendable {
    private let results = Mutex<[Int: Result<[Int], any Error>]>([:])

    func set(_ index: Int, _ result: Result<[Int], any Error>) { results.withLock { $0[index] = result } }

    func get(_ index: Int) throws -> [Int] {
        guard let result = results.withLock({ $0[index] }) else { throw TestFailure("migration \(index) did not finish") }
        return try result.get()
    }
}
