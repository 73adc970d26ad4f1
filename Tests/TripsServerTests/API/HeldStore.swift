import Dispatch
import Testing
import TripsDomain
@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// A store whose next change a test can hold on its way to being durable: the journal (its
/// `fdatasync` held) and PostgreSQL (its transaction waiting for the state row another
/// session holds). The in-memory store has no such moment.
enum HeldStore: String, Sendable, CustomTestStringConvertible {
    case journal, postgres

    /// The journal always; PostgreSQL when `scripts/postgres.sh` started a cluster for the tests.
    static var all: [HeldStore] {
        TestStore.all.contains(.postgres) ? [.journal, .postgres] : [.journal]
    }

    var testDescription: String { rawValue }

    /// The held change: `entered` returns once the next change is on its way and held there,
    /// `release` lets it go on.
    struct Held: Sendable {
        let entered: @Sendable () async throws -> Void
        let release: @Sendable () async throws -> Void
    }

    /// Runs `body` with a server on a store of this kind, holding the next change it makes.
    func withHeldChange(_ body: (APIServer, Held) async throws -> Void) async throws {
        switch self {
        case .journal:
            try await withStorageFolder { folder in
                let disk = FaultyFileSystem()
                let store = try TripStore.open(folder, samples: true, fileSystem: disk)
                defer { store.close() }
                let api = try await APIServer(store: store)
                let gate = disk.holdNextDataSync()
                defer { gate.release.signal() }  // whatever fails, the sync goes on
                try await body(api, Held(entered: { try await onOwnThread { gate.entered.wait() } }, release: { gate.release.signal() }))
            }
        case .postgres:
            let database = try await APITestDatabases.shared.take()
            let store = try await onOwnThread { try PostgresTripStore(connection: database.configuration) }
            defer { APITestDatabases.shared.giveBack(database, after: store.close) }
            let api = try await APIServer(store: store)
            // Another session holds the state row, which every write locks first, until told.
            let (locked, waiting, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            defer { release.signal() }  // whatever fails, the holder lets go
            let holding = Task {
                try await onOwnThread {
                    let holder = try PostgresConnection.connect(database.configuration)
                    defer { holder.close() }
                    try holder.simpleQuery("BEGIN")
                    _ = try holder.query("SELECT revision FROM trips_state FOR UPDATE")
                    locked.signal()
                    // The next change is held once its transaction waits for the lock. Watched
                    // from a session outside any transaction: one inside sees pg_stat_activity
                    // as it was at its first look.
                    let watcher = try PostgresConnection.connect(database.configuration)
                    defer { watcher.close() }
                    let waiters = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    while try watcher.query(waiters).rows.first?.first == "0" {}
                    waiting.signal()
                    release.wait()
                    try holder.simpleQuery("ROLLBACK")
                }
            }
            try await onOwnThread { locked.wait() }
            let held = Held(
                entered: { try await onOwnThread { waiting.wait() } },
                release: {
                    release.signal()
                    try await holding.value
                })
            try await body(api, held)
        }
    }
}
