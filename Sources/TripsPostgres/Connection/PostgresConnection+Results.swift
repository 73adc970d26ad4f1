/// Reading the answers to a query: the extended protocol's (`pipeline`, `query`) and the
/// simple protocol's (`simpleQuery`), message by message, into rows of text.
extension PostgresConnection {
    /// The extended query's answers, for each statement: ParseComplete (unless its plan says
    /// it was prepared already), BindComplete, RowDescription or NoData (unless its plan knows
    /// the columns), DataRows, CommandComplete (or EmptyQueryResponse); then one
    /// ReadyForQuery. After an ErrorResponse the server skips to ReadyForQuery. A named
    /// statement whose Parse completed is prepared from then on, whatever follows. The last
    /// The rows of the statement at `streaming.index` go to `streaming.eachRow` when there is
    /// one, and its result holds none; `handing.answered` gets the results up to the statement
    /// at `handing.index` once they are read.
    func readExtendedQueryResults(
        _ plans: [PostgresPreparedStatements.Plan], deadline: ContinuousClock.Instant,
        streaming: (index: Int, eachRow: (PostgresRowValues) -> Void)?, handing: (index: Int, answered: ([PostgresRows]) -> Void)? = nil
    ) throws(PostgresConnectionError) -> [PostgresRows] {
        enum Stage { case parse, bind, describe, rows, done }
        let count = plans.count
        var results: [PostgresRows] = []
        results.reserveCapacity(count)
        answeredStatements = 0
        defer { answeredStatements = results.count }
        func firstStage(of index: Int) -> Stage { index == count ? .done : plans[index].isParsed ? .parse : .bind }
        var stage = firstStage(of: 0)
        var columns: [String] = []
        var rows: [[String?]] = []
        var held = HeldRows(limit: configuration.maxHeldRowBytes)
        var failure: PostgresServerError?
        func take(_ row: PostgresRowValues) throws(PostgresConnectionError) {
            guard stage == .rows, failure == nil, row.count == columns.count else { throw .unexpectedMessage(.dataRow) }
            if let streaming, results.count == streaming.index {
                streaming.eachRow(row)
                return
            }
            try held.add(row)
            rows.append(try row.texts())
        }
        while true {
            let message = try nextMessage(deadline: deadline, dataRow: take)
            if case .errorResponse(let diagnostic) = message {
                let error = PostgresServerError(diagnostic: diagnostic)
                // A FATAL error ends the session at once, even after an ordinary one.
                if error.endsSession {
                    // After every statement finished, the answers stand: a COMMIT's
                    // CommandComplete means it committed, and a session ended right after it
                    // (an administrator's shutdown before ReadyForQuery) takes nothing back.
                    // Taking the error instead would have the caller run committed work again.
                    if stage == .done, failure == nil {
                        endSession()
                        return results
                    }
                    throw .server(error)
                }
                guard failure == nil else { throw .unexpectedMessage(.errorResponse) }
                failure = error
                continue
            }
            if let failure {
                guard case .readyForQuery(let status) = message else { throw .unexpectedMessage(message.kind) }
                transactionStatus = status
                throw .server(failure)
            }
            switch (stage, message) {
            case (.parse, .parseComplete):
                prepared.parsed(plans[results.count])
                stage = .bind
            case (.bind, .bindComplete):
                if let known = plans[results.count].columns {
                    columns = known
                    stage = .rows
                } else {
                    stage = .describe
                }
            case (.describe, .rowDescription(let descriptions)):
                guard descriptions.allSatisfy({ $0.formatCode == 0 }) else { throw .unexpectedMessage(.rowDescription) }
                columns = descriptions.map(\.name)
                prepared.described(plans[results.count], columns: columns)
                stage = .rows
            case (.describe, .noData):
                prepared.described(plans[results.count], columns: [])
                stage = .rows
            case (.rows, .commandComplete), (.rows, .emptyQueryResponse):
                let tag = if case .commandComplete(let tag) = message { tag } else { "" }
                results.append(PostgresRows(columns: columns, rows: rows, commandTag: tag))
                (columns, rows) = ([], [])
                if let handing, results.count == handing.index + 1 { handing.answered(results) }
                stage = firstStage(of: results.count)
            case (.done, .readyForQuery(let status)):
                transactionStatus = status
                return results
            default: throw .unexpectedMessage(message.kind)
            }
        }
    }

    /// The simple query's answers: per statement, RowDescription and DataRows if it returns
    /// rows, then CommandComplete (EmptyQueryResponse for empty SQL); ReadyForQuery at the end.
    /// An ErrorResponse ends the statements early.
    func readSimpleQueryResults(deadline: ContinuousClock.Instant) throws(PostgresConnectionError) -> [PostgresRows] {
        var results: [PostgresRows] = []
        var columns: [String]?
        var rows: [[String?]] = []
        var held = HeldRows(limit: configuration.maxHeldRowBytes)
        var failure: PostgresServerError?
        func take(_ row: PostgresRowValues) throws(PostgresConnectionError) {
            guard let columns, failure == nil, row.count == columns.count else { throw .unexpectedMessage(.dataRow) }
            try held.add(row)
            rows.append(try row.texts())
        }
        while true {
            let message = try nextMessage(deadline: deadline, dataRow: take)
            if case .errorResponse(let diagnostic) = message, diagnostic.endsSession {
                throw .server(PostgresServerError(diagnostic: diagnostic))
            }
            if failure != nil, message.kind != .readyForQuery { throw .unexpectedMessage(message.kind) }
            switch message {
            case .rowDescription(let descriptions) where columns == nil:
                guard descriptions.allSatisfy({ $0.formatCode == 0 }) else { throw .unexpectedMessage(.rowDescription) }
                columns = descriptions.map(\.name)
            case .commandComplete(let tag):
                results.append(PostgresRows(columns: columns ?? [], rows: rows, commandTag: tag))
                columns = nil
                rows = []
            case .emptyQueryResponse where columns == nil:
                results.append(PostgresRows(columns: [], rows: [], commandTag: ""))
            case .errorResponse(let diagnostic):
                failure = PostgresServerError(diagnostic: diagnostic)
            case .readyForQuery(let status) where columns == nil:
                transactionStatus = status
                if let failure { throw .server(failure) }
                return results
            default:
                throw .unexpectedMessage(message.kind)
            }
        }
    }
}

/// The bytes of the rows one call holds for its results, up to a limit.
private struct HeldRows {
    let limit: Int
    private var bytes = 0

    init(limit: Int) {
        self.limit = limit
    }

    mutating func add(_ row: PostgresRowValues) throws(PostgresConnectionError) {
        bytes += row.messageByteCount
        guard bytes <= limit else { throw .wire(.resultTooLong(limit: limit)) }
    }
}
