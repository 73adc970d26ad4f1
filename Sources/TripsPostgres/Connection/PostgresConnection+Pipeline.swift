/// The extended query protocol as callers use it: statements sent in one pipeline, with one
/// Sync, and their results read back, whole or row by row.
extension PostgresConnection {
    /// Runs one statement with `parameters` bound to `$1`, `$2`, … as text (nil is NULL).
    ///
    /// The server infers each parameter's type from the statement; cast where it cannot
    /// (`$1::int`). Returns the rows in text format and the command tag.
    package func query(_ sql: String, _ parameters: PostgresParameters = []) throws(PostgresConnectionError) -> PostgresRows {
        try pipeline([PostgresStatement(sql, parameters)])[0]
    }

    /// Runs `statements` in order with one round trip: all are sent at once, with one Sync
    /// after the last, and their results read back. The first statement the server refuses
    /// throws `.server`, and those after it are skipped (the server discards them up to the
    /// Sync); inside a transaction, the transaction is then failed, to be rolled back.
    /// https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-PIPELINING
    package func pipeline(_ statements: [PostgresStatement]) throws(PostgresConnectionError) -> [PostgresRows] {
        try run(statements, streaming: nil)
    }

    /// `pipeline`, with the last statement's rows handed to `eachRow` one by one as they are
    /// read, in the bytes they came in (`PostgresRowValues`), instead of kept: for answers
    /// too long to hold as text (a million trips at start-up). Its result has no rows.
    ///
    /// Every row is read whatever the body does, so that the connection stays in step: a
    /// body that meets a row it cannot use notes why and passes over the rest.
    package func pipeline(
        _ statements: [PostgresStatement], eachRowOfLast eachRow: (PostgresRowValues) -> Void
    ) throws(PostgresConnectionError) -> [PostgresRows] {
        try withoutActuallyEscaping(eachRow) { (eachRow) throws(PostgresConnectionError) in
            try run(statements, streaming: (statements.count - 1, eachRow))
        }
    }

    /// `pipeline`, with the rows of the statement at `index` handed to `eachRow` as they are
    /// read (as `pipeline(_:eachRowOfLast:)` hands the last's), the server asked to send the
    /// answers up to that statement at once (a Flush after it), and `answered` handed them as
    /// soon as they are read: what the caller can act on while the server runs the statements
    /// after it.
    package func pipeline(
        _ statements: [PostgresStatement], eachRowOf index: Int, _ eachRow: (PostgresRowValues) -> Void,
        thenHandingAnswersTo answered: ([PostgresRows]) -> Void
    ) throws(PostgresConnectionError) -> [PostgresRows] {
        try withoutActuallyEscaping(eachRow) { (eachRow) throws(PostgresConnectionError) in
            try withoutActuallyEscaping(answered) { (answered) throws(PostgresConnectionError) in
                try run(statements, streaming: (index, eachRow), handing: (index, answered))
            }
        }
    }

    /// Sends `statements` with one Sync and reads their results (`pipeline`).
    private func run(
        _ statements: [PostgresStatement], streaming: (index: Int, eachRow: (PostgresRowValues) -> Void)?,
        handing: (index: Int, answered: ([PostgresRows]) -> Void)? = nil
    ) throws(PostgresConnectionError) -> [PostgresRows] {
        try perform { () throws(PostgresConnectionError) in
            let deadline = ContinuousClock.now + configuration.queryTimeout
            let (messages, plans) = prepared.messages(for: statements, flushingAfter: handing?.index)
            try send(messages, deadline: deadline)
            return try readExtendedQueryResults(plans, deadline: deadline, streaming: streaming, handing: handing)
        }
    }
}
