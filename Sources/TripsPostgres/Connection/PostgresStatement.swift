/// One statement for `PostgresConnection.pipeline`: SQL with `$1`, `$2`, … and the text of
/// each parameter, as Bind sends it (`PostgresParameters`; an array literal of `String?`
/// makes one, nil is NULL).
package struct PostgresStatement: Sendable, Hashable {
    package var sql: String
    package var parameters: PostgresParameters
    /// Whether the connection keeps the statement parsed once it ran: a named prepared
    /// statement, parsed and planned by the server the first time and then only bound and
    /// executed. For the fixed statements a session runs again and again (the SQL is the key:
    /// it must be a literal, never built from data).
    package var isPrepared: Bool

    package init(_ sql: String, _ parameters: PostgresParameters = [], prepared: Bool = false) {
        self.sql = sql
        self.parameters = parameters
        self.isPrepared = prepared
    }
}
