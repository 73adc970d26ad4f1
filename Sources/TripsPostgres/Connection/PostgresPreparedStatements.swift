/// The named prepared statements of one session (`PostgresStatement.isPrepared`), by their
/// SQL, and the messages that run statements with them: Parse under a new name the first
/// time, then only Bind to it.
///
/// A name counts once the server completed its Parse (`parsed`): a Parse the server skipped
/// (an earlier statement of the pipeline failed) or refused leaves the statement to be parsed
/// again next time, and its name to be given again. Its result's columns are asked for
/// (Describe) until the server has told them once (`described`): a prepared statement's
/// result keeps its shape, so later runs leave the Describe out, and the RowDescription the
/// server would answer it with, whose every column name was read into a string again.
struct PostgresPreparedStatements {
    /// How many statements a session keeps prepared; the others are parsed every time.
    static let limit = 64

    /// How one statement of a pipeline runs.
    struct Plan: Equatable {
        var sql: String
        /// Whether it is parsed (under `name`, or unnamed), not prepared already.
        var isParsed = false
        /// Its prepared name, when it has one.
        var name: String?
        /// Its result's columns when they are known, and no Describe is sent for it.
        var columns: [String]?
    }

    /// What the session has prepared under a name.
    private struct Prepared {
        var name: String
        /// The result's columns, once the server described them.
        var columns: [String]?
    }

    private var statements: [SQLText: Prepared] = [:]

    /// A statement's SQL as the key it is found by. Hashed by its length alone: a session's
    /// prepared statements are a few dozen literals, which their lengths nearly always tell
    /// apart, and a literal equals itself by identity without its bytes being read. Hashing
    /// the text read every byte of every statement: 7,700 instructions of a create's
    /// transaction.
    private struct SQLText: Hashable {
        let sql: String

        func hash(into hasher: inout Hasher) { hasher.combine(sql.utf8.count) }
    }

    /// The messages that run `statements` in order, Sync last, and how each runs; a Flush after
    /// the statement at `flushed`, so that the server sends the answers up to it at once.
    func messages(for statements: [PostgresStatement], flushingAfter flushed: Int? = nil) -> (messages: [FrontendMessage], plans: [Plan]) {
        var messages: [FrontendMessage] = []
        messages.reserveCapacity(statements.count * 4 + 2)
        var plans: [Plan] = []
        plans.reserveCapacity(statements.count)  // grown from nothing, a create's took four copies
        // Named in this pipeline: a second use of one binds to the name its first Parse gives.
        var naming: [SQLText: String] = [:]
        for statement in statements {
            let key = SQLText(sql: statement.sql)
            var plan = Plan(sql: statement.sql)
            if statement.isPrepared, let prepared = self.statements[key] {
                plan.name = prepared.name
                plan.columns = prepared.columns
            } else if statement.isPrepared, let name = naming[key] {
                plan.name = name
            } else {
                if statement.isPrepared, self.statements.count + naming.count < Self.limit {
                    let name = "trips_\(self.statements.count + naming.count)"
                    naming[key] = name
                    plan.name = name
                }
                plan.isParsed = true
                messages.append(.parse(statement: plan.name ?? "", query: statement.sql))
            }
            messages.append(.bind(portal: "", statement: plan.name ?? "", parameters: statement.parameters))
            if plan.columns == nil { messages.append(.describe(.portal(""))) }
            messages.append(.execute(portal: "", maxRows: 0))
            if plans.count == flushed { messages.append(.flush) }
            plans.append(plan)
        }
        messages.append(.sync)
        return (messages, plans)
    }

    /// The server completed `plan`'s Parse: a named statement is prepared from now on.
    mutating func parsed(_ plan: Plan) {
        guard plan.isParsed, let name = plan.name else { return }
        statements[SQLText(sql: plan.sql)] = Prepared(name: name)
    }

    /// The server described the result of `plan`'s statement as `columns`: a prepared one
    /// runs without a Describe from now on.
    mutating func described(_ plan: Plan, columns: [String]) {
        let key = SQLText(sql: plan.sql)
        guard plan.name != nil, statements[key]?.name == plan.name else { return }
        statements[key]?.columns = columns
    }
}
