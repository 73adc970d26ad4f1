/// One statement for `PostgresConnection.pipeline`: SQL with `$1`, `$2`, … and the text of
/// each parameter (nil is NULL).
package struct PostgresStatement: Sendable, Hashable {
    package var sql: String
    package var parameters: [String?]

    package init(_ sql: String, _ parameters: [String?] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}
