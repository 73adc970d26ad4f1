import TripsPostgres

/// Why the database's schema could not be brought up to date; the server does not start.
package enum SchemaMigrationError: Error, CustomStringConvertible {
    /// The database holds migrations this server does not know: a newer server migrated it.
    case newerSchema(found: Int, known: Int)
    /// A migration failed; the transaction rolled back, so none of this run's migrations stay.
    case migrationFailed(version: Int, name: String, PostgresConnectionError)
    /// Beginning, locking, reading the applied versions or committing failed.
    case database(PostgresConnectionError)

    package var description: String {
        switch self {
        case .newerSchema(let found, let known):
            "the database's schema is at version \(found), newer than this server knows (\(known)): run a newer trips-server"
        case .migrationFailed(let version, let name, let error): "migration \(version) (\(name)) failed: \(error)"
        case .database(let error): "migrating the database's schema failed: \(error)"
        }
    }
}
