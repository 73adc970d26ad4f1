/// The named prepared statements of one session (`PostgresStatement.isPrepared`), by their
/// SQL, and the messages that run statements with them: Parse under a new name the first
/// time, then only Bind to it.
///
/// A name counts once the server completed its Parse (`parsed`): a Parse the server skipped
/// (an earlier statement of the pipeline failed) or refused leaves the statement to be parsed
/// again next time, and its name to be given again.
struct PostgresPreparedStatements {
    /// How many statements a session keeps prepared; the others are parsed every time.
    static let limit = 64

    /// How one statement of a pipeline is parsed: under `name` ("" for the unnamed
    /// statement), or not at all (nil) when it is prepared already.
    typealias Parse = (sql: String, name: String)?

    private var names: [SQLText: String] = [:]

    /// A statement's SQL as the key it is found by. Hashed by its length alone: a session's
    /// prepared statements are a few dozen literals, which their lengths nearly always tell
    /// apart, and a literal equals itself by identity without its bytes being read. Hashing
    /// the text read every byte of every statement: 7,700 instructions of a create's
    /// transaction.
    private struct SQLText: Hashable {
        let sql: String

        func hash(into hasher: inout Hasher) { hasher.combine(sql.utf8.count) }
    }

    /// The messages that run `statements` in order, Sync last, and how each is parsed.
    func messages(for statements: [PostgresStatement]) -> (messages: [FrontendMessage], parses: [Parse]) {
        var messages: [FrontendMessage] = []
        messages.reserveCapacity(statements.count * 4 + 1)
        var parses: [Parse] = []
        // Named in this pipeline: a second use of one binds to the name its first Parse gives.
        var naming: [SQLText: String] = [:]
        for statement in statements {
            let key = SQLText(sql: statement.sql)
            if statement.isPrepared, let name = names[key] ?? naming[key] {
                parses.append(nil)
                messages.append(.bind(portal: "", statement: name, parameters: statement.parameters))
            } else {
                var name = ""
                if statement.isPrepared, names.count + naming.count < Self.limit {
                    name = "trips_\(names.count + naming.count)"
                    naming[key] = name
                }
                parses.append((statement.sql, name))
                messages.append(.parse(statement: name, query: statement.sql))
                messages.append(.bind(portal: "", statement: name, parameters: statement.parameters))
            }
            messages.append(.describe(.portal("")))
            messages.append(.execute(portal: "", maxRows: 0))
        }
        messages.append(.sync)
        return (messages, parses)
    }

    /// The server completed `parse`: a named statement is prepared from now on.
    mutating func parsed(_ parse: Parse) {
        guard let parse, !parse.name.isEmpty else { return }
        names[SQLText(sql: parse.sql)] = parse.name
    }
}
