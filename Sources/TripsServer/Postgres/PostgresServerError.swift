/// A statement (or a login) failed: the server's ErrorResponse, as a value.
///
/// `sqlState` is what code acts on (see `SQLState` for what the store does with each);
/// the message, detail and hint are for logs.
struct PostgresServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every field the server sent.
    let diagnostic: PostgresDiagnostic

    var sqlState: SQLState { diagnostic.sqlState }
    /// `ERROR`, or `FATAL` and `PANIC` when the session is over.
    var severity: String { diagnostic.severity }
    var message: String { diagnostic.message }
    var detail: String? { diagnostic.detail }
    var hint: String? { diagnostic.hint }
    /// The constraint that failed, such as `trips_pkey` for a unique violation.
    var constraintName: String? { diagnostic.constraintName }
    var tableName: String? { diagnostic.tableName }
    /// FATAL or PANIC: the server closes the connection after it.
    var endsSession: Bool { diagnostic.endsSession }

    var description: String {
        "PostgreSQL \(severity) \(sqlState): \(message)" + (detail.map { " (\($0))" } ?? "")
    }
}
