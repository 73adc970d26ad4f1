import TripsPostgres

/// Why the PostgreSQL store could not read or write.
package enum PostgresStoreError: Error, Sendable, CustomStringConvertible {
    /// The connection failed, or the server refused a statement.
    case database(PostgresConnectionError)
    /// The session ended (the socket failed, the server shut it down) after `COMMIT` was sent
    /// and before its answer came: the transaction may have committed, so it is not run again;
    /// the writer's next catching up finds out.
    case commitOutcomeUnknown(PostgresConnectionError)
    /// No connection could be had: the database cannot be reached, or all are in use.
    case connections(PostgresPoolError)
    /// Bringing the schema up to date failed, or the database is newer than this server.
    case migration(SchemaMigrationError)
    /// The tables hold something this server would not have written (a change out of
    /// sequence, an unreadable record, a revision that went backwards).
    case damaged(String)

    package var description: String {
        switch self {
        case .database(let error): "the database: \(error)"
        case .commitOutcomeUnknown(let error): "the session ended before COMMIT was answered, so the change may have been made: \(error)"
        case .connections(let error): "\(error)"
        case .migration(let error): "\(error)"
        case .damaged(let reason): "the trips tables are damaged: \(reason)"
        }
    }
}
