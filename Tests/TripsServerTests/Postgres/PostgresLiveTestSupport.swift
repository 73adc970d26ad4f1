import Foundation
import Glibc
import Synchronization
import TripsDomain

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// The throwaway cluster of `scripts/lib/postgres.sh`, named by the URLs it exports. Without them
/// the live tests are skipped.
enum LiveDatabase {
    /// Trust over the Unix socket, as the superuser postgres.
    static let socketURL = "TRIPS_TEST_DATABASE_SOCKET_URL"
    /// scram-sha-256 over TCP, as trips.
    static let scramURL = "TRIPS_TEST_DATABASE_URL"
    /// md5 over TCP, as trips_md5.
    static let md5URL = "TRIPS_TEST_DATABASE_MD5_URL"
    /// password (cleartext) over TCP, as trips_plain.
    static let plainURL = "TRIPS_TEST_DATABASE_PLAIN_URL"

    static func url(_ variable: String) -> String? {
        getenv(variable).map { String(cString: $0) }
    }

    static func isConfigured(_ variable: String) -> Bool { url(variable) != nil }

    /// The configuration `variable`'s URL gives, with timeouts no test should reach.
    static func configuration(_ variable: String) throws -> PostgresConnectionConfiguration {
        guard let text = url(variable) else { throw TestFailure("\(variable) is not set") }
        guard var configuration = PostgresConnectionConfiguration(url: try DatabaseURL(text)) else {
            throw TestFailure("\(variable) names no user")
        }
        configuration.applicationName = "trips-live-tests"
        configuration.queryTimeout = .seconds(20)
        return configuration
    }

    /// Connects to `variable`'s database, on the calling thread.
    static func connect(_ variable: String = socketURL) throws -> PostgresConnection {
        try PostgresConnection.connect(configuration(variable))
    }

    /// A connection whose unqualified tables live in `schema` (first on its search path).
    static func connect(to schema: String) throws -> PostgresConnection {
        let connection = try connect()
        _ = try connection.query("SELECT set_config('search_path', $1, false)", [schema])
        return connection
    }
}

extension LiveDatabase {
    /// A new, empty database named `prefix` and a random number: the configuration that
    /// reaches it, and what drops it again (ending its sessions).
    static func createDatabase(named prefix: String) throws -> (configuration: PostgresConnectionConfiguration, drop: @Sendable () -> Void)
    {
        let name = "\(prefix)_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try connect()
        defer { admin.close() }
        _ = try admin.query("CREATE DATABASE \(name)")  // a name made here, not data
        var configuration = try configuration(socketURL)
        configuration.database = name
        return (
            configuration,
            {
                guard let admin = try? connect() else { return }
                _ = try? admin.query("DROP DATABASE \(name) WITH (FORCE)")
                admin.close()
            }
        )
    }
}

/// Runs `body` on a thread of its own with the name of a new schema (`prefix` and a random
/// number), and drops the schema after it: each test's tables apart from every other's.
func inFreshSchema<T: Sendable>(named prefix: String, _ body: @escaping @Sendable (String) throws -> T) async throws -> T {
    let schema = "\(prefix)_\(UInt32.random(in: 0...UInt32.max))"
    return try await onOwnThread {
        let admin = try LiveDatabase.connect()
        defer { admin.close() }
        _ = try admin.query("CREATE SCHEMA \(schema)")  // a name made here, not data
        defer { _ = try? admin.query("DROP SCHEMA \(schema) CASCADE") }
        return try body(schema)
    }
}

/// Runs `body` with a connection to the database `variable` names, on a thread of its own
/// (the connection blocks), and closes the connection after it.
func withLiveConnection<T: Sendable>(
    _ variable: String = LiveDatabase.socketURL, _ body: @escaping @Sendable (PostgresConnection) throws -> T
) async throws -> T {
    try await onOwnThread {
        let connection = try LiveDatabase.connect(variable)
        defer { connection.close() }
        return try body(connection)
    }
}

extension PostgresConnectionError {
    /// The server's error, if this is one.
    var serverError: PostgresServerError? {
        guard case .server(let error) = self else { return nil }
        return error
    }
}

/// Runs `body` and returns the connection error it throws, or nil.
func connectionError(_ body: () throws(PostgresConnectionError) -> some Any) -> PostgresConnectionError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// Submits the change `plan` makes to `store` and waits for its answer, on the calling thread.
func mutateWaiting(
    _ store: some TripStoring, idempotency: IdempotencyRequest? = nil, readsNoList: Bool = false,
    _ plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange?
) -> Result<Mutation, MutationError> {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<Mutation, MutationError>?>(nil)
    store.mutate(plan, idempotency: idempotency, readsNoList: readsNoList) { outcome in
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}

/// Yields the thread until `condition` holds, for 10 seconds (scaled) at most: a state another
/// thread reaches soon, with no event to wait on. False when it never held.
func yieldUntil(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(10 * TestTimeout.scale)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        sched_yield()
    }
    return true
}
