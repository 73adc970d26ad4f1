/// One statement for `PostgresConnection.pipeline`: SQL with `$1`, `$2`, … and the text of
/// each parameter (nil is NULL).
struct PostgresStatement: Sendable, Hashable {
    var sql: String
    var parameters: [String?]

    init(_ sql: String, _ parameters: [String?] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}
