/// A statement (or a login) failed: the server's ErrorResponse, as a value.
///
/// `sqlState` is what code acts on (see `SQLState` for what the store does with each);
/// the message, detail and hint are for logs.
package struct PostgresServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every field the server sent.
    package let diagnostic: PostgresDiagnostic

    package var sqlState: SQLState { diagnostic.sqlState }
    /// `ERROR`, or `FATAL` and `PANIC` when the session is over.
    package var severity: String { diagnostic.severity }
    package var message: String { diagnostic.message }
    package var detail: String? { diagnostic.detail }
    package var hint: String? { diagnostic.hint }
    /// The constraint that failed, such as `trips_pkey` for a unique violation.
    package var constraintName: String? { diagnostic.constraintName }
    package var tableName: String? { diagnostic.tableName }
    /// FATAL or PANIC: the server closes the connection after it.
    package var endsSession: Bool { diagnostic.endsSession }

    package var description: String {
        "PostgreSQL \(severity) \(sqlState): \(message)" + (detail.map { " (\($0))" } ?? "")
    }
}
