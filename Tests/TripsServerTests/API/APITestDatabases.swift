import Foundation
import Glibc
import Synchronization
@testable import TripsPostgres
@testable import TripsServer

/// The PostgreSQL databases API tests keep their trips in, each test's store alone in one.
///
/// At most `limit` are in use at once: a store holds up to three connections, and with every API
/// test running on PostgreSQL too, more stores at once than the test cluster's connections
/// (`max_connections` in `scripts/lib/postgres.sh`) allow would be open; a test waits for a database when all are in use. A
/// database a test is done with is emptied (its sessions ended, its schema dropped) and
/// handed to the next, since that takes milliseconds and creating one a fifth of a second.
/// The databases are dropped when the test process exits.
final class APITestDatabases: Sendable {
    static let shared = APITestDatabases(limit: 12)

    /// A database of the pool: its name, and the configuration that reaches it.
    struct Database: Sendable {
        let name: String
        let configuration: PostgresConnectionConfiguration
    }

    private struct State {
        /// Emptied, waiting for a test.
        var idle: [Database] = []
        /// Every database the pool made and has not dropped, for the exit.
        var names: Set<String> = []
    }

    private let state = Mutex(State())
    /// How many databases may be in use.
    private let inUse: AsyncLimit

    private init(limit: Int) {
        inUse = AsyncLimit(limit)
    }

    /// An empty database, once one is free.
    func take() async throws -> Database {
        await inUse.take()
        if let database = state.withLock({ $0.idle.popLast() }) { return database }
        do {
            let database = try await onOwnThread { () throws -> Database in
                let (configuration, _) = try LiveDatabase.createDatabase(named: "trips_api")
                return Database(name: configuration.database, configuration: configuration)
            }
            let isFirst = state.withLock { state -> Bool in
                defer { state.names.insert(database.name) }
                return state.names.isEmpty
            }
            if isFirst { atexit { APITestDatabases.shared.dropAll() } }
            return database
        } catch {
            release(nil)
            throw error
        }
    }

    /// Hands `database` to the next test once `close` (what closes the store on it) has run
    /// and the database is empty again, on a thread of its own: the caller does not wait.
    func giveBack(_ database: Database, after close: @escaping @Sendable () -> Void) {
        Thread {
            close()
            self.release(Self.empty(database) ? database : nil)
        }.start()
    }

    /// Ends the sessions still on `database` and drops everything in it; false (and the
    /// database dropped) when that failed.
    private static func empty(_ database: Database) -> Bool {
        do {
            let connection = try PostgresConnection.connect(database.configuration)
            defer { connection.close() }
            _ = try connection.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
            _ = try connection.query("DROP SCHEMA public CASCADE")
            _ = try connection.query("CREATE SCHEMA public")
            return true
        } catch {
            drop(database.name)
            return false
        }
    }

    /// Lets the next test have a database: `database` (emptied), or a new one.
    private func release(_ database: Database?) {
        if let database { state.withLock { $0.idle.append(database) } }
        inUse.giveBack()
    }

    private static func drop(_ name: String) {
        guard let admin = try? LiveDatabase.connect() else { return }
        _ = try? admin.query("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")  // a name made here, not data
        admin.close()
    }

    /// Drops every database the pool made, at the process's exit.
    private func dropAll() {
        let names = state.withLock { state -> Set<String> in
            defer { state.names = [] }
            return state.names
        }
        for name in names { Self.drop(name) }
    }
}
