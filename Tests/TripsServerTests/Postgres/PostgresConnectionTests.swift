import Testing
@testable import TripsPlatform
@testable import TripsPostgres
@testable import TripsServer

/// The connection against a server played from a script over a socketpair: every step of the
/// protocol, including the ones a real server rarely takes (misplaced messages, a FATAL in
/// the middle of a query, a server that hangs up or falls silent).
@Suite struct PostgresConnectionTests {
    /// A scripted server, and a connection that went through a trust startup with it.
    static func connected() throws -> (ScriptedPostgresServer, PostgresConnection) {
        let server = try ScriptedPostgresServer()
        try server.sayTrustStartup()
        let connection = try server.connect()
        _ = server.heard()
        return (server, connection)
    }

    /// The answers to one extended query that returns `rows` of `columns`.
    /// A statement's answers: ParseComplete (unless `parsed` is false: it was prepared),
    /// BindComplete, RowDescription, the rows, CommandComplete and ReadyForQuery.
    func rowsAnswer(_ columns: [String], _ rows: [[String?]], tag: String, parsed: Bool = true) -> [UInt8] {
        (parsed ? Wire.message("1", []) : []) + Wire.message("2", []) + Wire.rowDescription(columns) + rows.flatMap(Wire.dataRow)
            + Wire.commandComplete(tag) + Wire.readyForQuery()
    }

    // MARK: Queries

    @Test func aQuerySendsTheExtendedProtocolInOneBatchAndReadsTextRows() throws {
        let (server, connection) = try Self.connected()
        try server.say(rowsAnswer(["id", "name"], [["1", "Zürich"], ["2", nil]], tag: "SELECT 2"))
        let rows = try connection.query(
            "SELECT id, name FROM trips WHERE name <> $1 OR $2::int IS NULL", ["x'; DROP TABLE trips; --", nil])
        #expect(rows.columns == ["id", "name"])
        #expect(rows.rows == [["1", "Zürich"], ["2", nil]])
        #expect(rows.commandTag == "SELECT 2")
        #expect(rows.affectedRows == 2)
        #expect(rows[0, "name"] == "Zürich")
        #expect(rows[1, "name"] == nil)

        let sent = frontendMessages(server.heard())
        #expect(sent.map(\.type) == ["P", "B", "D", "E", "S"])
        #expect(sent[0].body == [0] + Wire.cString("SELECT id, name FROM trips WHERE name <> $1 OR $2::int IS NULL") + Wire.int16(0))
        let parameter = Array("x'; DROP TABLE trips; --".utf8)
        #expect(sent[1].body == [0, 0, 0, 0, 0, 2] + Wire.int32(Int32(parameter.count)) + parameter + Wire.int32(-1) + [0, 0])
    }

    @Test func theLastStatementsRowsAreHandedOverOneByOneAsTheyAreRead() throws {
        let (server, connection) = try Self.connected()
        // A value longer than one read of the socket: the row arrives in pieces.
        let long = String(repeating: "é", count: 100_000)
        try server.say(
            Wire.message("1", []) + Wire.message("2", []) + Wire.rowDescription(["a"]) + Wire.dataRow(["before"])
                + Wire.commandComplete("SELECT 1") + Wire.message("1", []) + Wire.message("2", [])
                + Wire.rowDescription(["id", "name"]) + Wire.dataRow(["1", "Zürich"]) + Wire.notification(pid: 1, "trips", "x")
                + Wire.dataRow(["2", nil]) + Wire.dataRow(["3", long]) + Wire.commandComplete("SELECT 3") + Wire.readyForQuery())
        var rows: [[String?]] = []
        let results = try connection.pipeline([PostgresStatement("SELECT 'before'"), PostgresStatement("SELECT id, name FROM trips")]) {
            row in rows.append((0..<row.count).map { row[$0].map { String(decoding: $0, as: UTF8.self) } })
        }
        #expect(results.map(\.rows) == [[["before"]], []])
        #expect(results.map(\.commandTag) == ["SELECT 1", "SELECT 3"])
        #expect(rows == [["1", "Zürich"], ["2", nil], ["3", long]])
        #expect(try connection.waitForNotifications(timeout: .zero).map(\.payload) == ["x"])
    }

    /// The rows of a statement in the middle of a pipeline are handed over one by one, and a
    /// Flush follows it, so its answers and those before it are handed over before the rest
    /// are read: here the server says the rest only once they were.
    @Test func theAnswersUpToAStatementAreHandedOverBeforeTheRestAreRead() throws {
        let (server, connection) = try Self.connected()
        try server.say(
            Wire.message("1", []) + Wire.message("2", []) + Wire.rowDescription(["a"]) + Wire.dataRow(["first"])
                + Wire.dataRow(["second"]) + Wire.commandComplete("SELECT 2"))
        let rest =
            Wire.message("1", []) + Wire.message("2", []) + Wire.message("n", []) + Wire.commandComplete("UPDATE 1")
            + Wire.readyForQuery()
        var rows: [String] = []
        var handed: [[String]] = []
        let statements = [PostgresStatement("SELECT 'first'"), PostgresStatement("UPDATE trips_state SET revision = 2")]
        let results = try connection.pipeline(
            statements, eachRowOf: 0, { row in rows.append(row[0].map { String(decoding: $0, as: UTF8.self) } ?? "NULL") }
        ) { (answered: [PostgresRows]) in
            handed.append(answered.map { $0.commandTag })
            try? server.say(rest)
        }
        #expect(rows == ["first", "second"])
        #expect(handed == [["SELECT 2"]])
        #expect(results[0].rows.isEmpty, "the rows handed over are not kept")
        #expect(results.map { $0.commandTag } == ["SELECT 2", "UPDATE 1"])
        #expect(frontendMessages(server.heard()).map(\.type) == ["P", "B", "D", "E", "H", "P", "B", "D", "E", "S"])
    }

    @Test func aStatementThatFailsAfterSomeRowsThrowsOnceTheServerIsReadyAndTheConnectionGoesOn() throws {
        let (server, connection) = try Self.connected()
        try server.say(
            Wire.message("1", []) + Wire.message("2", []) + Wire.rowDescription(["id"]) + Wire.dataRow(["1"])
                + Wire.error("57014", "canceling statement due to statement timeout") + Wire.readyForQuery())
        var count = 0
        let error = try #require(throws: PostgresConnectionError.self) {
            try connection.pipeline([PostgresStatement("SELECT id FROM trips")]) { _ in count += 1 }
        }
        guard case .server(let failure) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(failure.sqlState == .queryCanceled)
        #expect(count == 1)
        try server.say(rowsAnswer(["a"], [["1"]], tag: "SELECT 1"))
        #expect(try connection.query("SELECT 1").rows == [["1"]])
    }

    @Test func aStatementWithoutRowsGivesItsTag() throws {
        let (server, connection) = try Self.connected()
        try server.say(
            Wire.message("1", []) + Wire.message("2", []) + Wire.message("n", []) + Wire.commandComplete("INSERT 0 1")
                + Wire.readyForQuery("T"))
        let rows = try connection.query("INSERT INTO trips (name) VALUES ($1)", ["Lisbon"])
        #expect(rows.columns.isEmpty && rows.rows.isEmpty)
        #expect(rows.commandTag == "INSERT 0 1")
        #expect(rows.affectedRows == 1)
        #expect(connection.transactionStatus == .inTransaction)
    }

    @Test func anEmptyQueryGivesAnEmptyTag() throws {
        let (server, connection) = try Self.connected()
        try server.say(Wire.message("1", []) + Wire.message("2", []) + Wire.message("n", []) + Wire.message("I", []) + Wire.readyForQuery())
        let rows = try connection.query("")
        #expect(rows.commandTag == "")
        #expect(rows.affectedRows == nil)
    }

    @Test func asynchronousMessagesAnywhereAreSetAside() throws {
        let (server, connection) = try Self.connected()
        var notices: [String] = []
        connection.noticeHandler = { notices.append($0.message) }
        let notice = Wire.diagnostic("N", [("S", "WARNING"), ("C", "01000"), ("M", "careful")])
        let status = Wire.parameterStatus("TimeZone", "Europe/Zurich")
        let notification = Wire.notification(pid: 12, "trips", "changed")
        try server.say(
            notice + Wire.message("1", []) + status + Wire.message("2", []) + notification + Wire.rowDescription(["a"]) + notice
                + Wire.dataRow(["1"]) + status + Wire.commandComplete("SELECT 1") + notification + Wire.readyForQuery())
        let rows = try connection.query("SELECT 1 AS a")
        #expect(rows.rows == [["1"]])
        #expect(notices == ["careful", "careful"])
        #expect(connection.parameters["TimeZone"] == "Europe/Zurich")
        #expect(
            try connection.waitForNotifications(timeout: .zero)
                == [.init(processID: 12, channel: "trips", payload: "changed"), .init(processID: 12, channel: "trips", payload: "changed")])
        #expect(try connection.waitForNotifications(timeout: .milliseconds(1)).isEmpty)
    }

    /// A setting longer than PostgreSQL's ever are is not remembered: a server could send 64
    /// of 64 MiB each, held for the connection's life.
    @Test func aSettingTooLongIsNotRemembered() throws {
        let (server, connection) = try Self.connected()
        let long = String(repeating: "x", count: 2_000)
        try server.say(
            Wire.message("1", []) + Wire.message("2", []) + Wire.parameterStatus("TimeZone", "UTC")
                + Wire.parameterStatus("long_setting", long) + Wire.parameterStatus(long, "x")
                + Wire.parameterStatus("TimeZone", long) + Wire.message("n", []) + Wire.commandComplete("SET")
                + Wire.readyForQuery())
        _ = try connection.query("SET a = 1")
        #expect(connection.parameters["long_setting"] == nil)
        #expect(connection.parameters[long] == nil)
        #expect(connection.parameters["TimeZone"] == nil, "its last value is out of date")
        #expect(connection.isOpen)
    }

    /// A server sending notifications to a connection that never asks for them, or new
    /// setting names, without end, is not remembered past a bound: the newest notifications.
    @Test func floodsOfNotificationsAndSettingsAreBounded() throws {
        let (server, connection) = try Self.connected()
        var flood = Wire.message("1", []) + Wire.message("2", [])
        for index in 0..<3_000 {
            flood += Wire.notification(pid: 1, "trips", "\(index)") + Wire.parameterStatus("setting_\(index)", "x")
        }
        try server.say(flood + Wire.message("n", []) + Wire.commandComplete("SET") + Wire.readyForQuery())
        _ = try connection.query("SET a = 1")
        #expect(connection.parameters.count == 64)
        let kept = try connection.waitForNotifications(timeout: .zero).map(\.payload)
        #expect(kept.count <= 1_024 && kept.count > 512)
        #expect(kept.last == "2999")
    }

    /// A server that never stops sending rows for a result held whole is cut off at the
    /// rows' byte limit, long before the query's timeout: memory, not only time, is bounded.
    /// Rows streamed to a body are not counted.
    @Test func rowsWithoutEndForAResultHeldWholeStopAtTheLimit() throws {
        let (server, connection) = try Self.connected(holdingRowsUpTo: 64 * 1024)
        try server.say(Wire.message("1", []) + Wire.message("2", []) + Wire.rowDescription(["revision"]))
        try server.keepSaying(Wire.dataRow(["12345678"]), for: .seconds(5))
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT revision FROM trips_state") }
        guard case .wire(.resultTooLong(limit: 64 * 1024)) = error else {
            Issue.record("expected a result too long, got \(error)")
            return
        }
        #expect(!connection.isOpen)

        let (streamingServer, streaming) = try Self.connected(holdingRowsUpTo: 64 * 1024)
        let rows = Array(repeating: ["12345678"], count: 10_000)
        try streamingServer.sayOnItsOwnThread(rowsAnswer(["revision"], rows, tag: "SELECT 10000"))
        var count = 0
        _ = try streaming.pipeline([PostgresStatement("SELECT revision FROM trip_changes")], eachRowOfLast: { _ in count += 1 })
        #expect(count == 10_000, "about 190 KB streamed past a limit that would hold 64 KB")
    }

    /// A scripted server, and a connection through a trust startup that holds at most `limit`
    /// bytes of rows for a result.
    static func connected(holdingRowsUpTo limit: Int) throws -> (ScriptedPostgresServer, PostgresConnection) {
        let server = try ScriptedPostgresServer()
        try server.sayTrustStartup()
        var configuration = scriptedConfiguration()
        configuration.maxHeldRowBytes = limit
        let connection = try server.connect(configuration)
        _ = server.heard()
        return (server, connection)
    }

    /// A row of megabytes grows the read buffer; the pooled connection lets that go at its next
    /// read, not holding the largest row it ever read for good.
    @Test func aBufferGrownByALongRowIsLetGoAtTheNextRead() throws {
        let (server, connection) = try Self.connected()
        let long = String(repeating: "x", count: 3 << 20)
        try server.sayOnItsOwnThread(rowsAnswer(["notes"], [[long]], tag: "SELECT 1"))
        #expect(try connection.query("SELECT notes FROM trips").rows == [[long]])
        #expect(connection.readBufferCapacity >= 3 << 20)
        try server.say(rowsAnswer(["id"], [["1"]], tag: "SELECT 1"))
        #expect(try connection.query("SELECT id FROM trips").rows == [["1"]])
        #expect(connection.readBufferCapacity < 1 << 20)
    }

    @Test func aRefusedStatementThrowsAfterReadyForQueryAndTheConnectionGoesOn() throws {
        let (server, connection) = try Self.connected()
        try server.say(
            Wire.message("1", []) + Wire.message("2", []) + Wire.message("n", [])
                + Wire.diagnostic(
                    "E",
                    [
                        ("S", "ERROR"), ("V", "ERROR"), ("C", "23505"),
                        ("M", "duplicate key value violates unique constraint \"trips_pkey\""),
                        ("D", "Key (id)=(1) already exists."), ("n", "trips_pkey"),
                    ]) + Wire.readyForQuery("E"))
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("INSERT INTO trips VALUES (1)") }
        guard case .server(let serverError) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(serverError.sqlState == .uniqueViolation)
        #expect(serverError.constraintName == "trips_pkey")
        #expect(serverError.detail == "Key (id)=(1) already exists.")
        #expect(error.leavesConnectionUsable)
        #expect(connection.isOpen)
        #expect(connection.transactionStatus == .failedTransaction)

        try server.say(rowsAnswer(["one"], [["1"]], tag: "SELECT 1"))
        #expect(try connection.query("SELECT 1 AS one").rows == [["1"]])
    }

    /// Then it is only bound and executed: its columns, described by the first run, are kept.
    @Test func aPreparedStatementIsParsedOnceUnderItsNameAndThenOnlyBound() throws {
        let (server, connection) = try Self.connected()
        let statement = PostgresStatement("SELECT city FROM trips WHERE id = $1", ["1"], prepared: true)
        try server.say(rowsAnswer(["city"], [["Lisbon"]], tag: "SELECT 1"))
        #expect(try connection.pipeline([statement])[0].rows == [["Lisbon"]])
        let first = frontendMessages(server.heard())
        #expect(first.map(\.type) == ["P", "B", "D", "E", "S"])
        #expect(first[0].body == Wire.cString("trips_0") + Wire.cString(statement.sql) + Wire.int16(0))
        #expect(first[1].body.starts(with: [0] + Wire.cString("trips_0")))

        // Bound to the name, twice in one pipeline, next to an unnamed statement parsed and
        // described each time.
        try server.say(
            Wire.message("2", []) + Wire.dataRow(["Porto"]) + Wire.commandComplete("SELECT 1")
                + Wire.message("1", []) + Wire.message("2", []) + Wire.message("n", []) + Wire.commandComplete("SET")
                + Wire.message("2", []) + Wire.commandComplete("SELECT 0") + Wire.readyForQuery())
        let results = try connection.pipeline([statement, PostgresStatement("SET x.y = 1"), statement])
        #expect(results.map(\.commandTag) == ["SELECT 1", "SET", "SELECT 0"])
        #expect(results[0].columns == ["city"] && results[0].rows == [["Porto"]] && results[2].columns == ["city"])
        let second = frontendMessages(server.heard())
        #expect(second.map(\.type) == ["B", "E", "P", "B", "D", "E", "B", "E", "S"])
        #expect(second[0].body.starts(with: [0] + Wire.cString("trips_0")))
        #expect(second[2].body.starts(with: [0]))  // unnamed
    }

    /// A prepared statement whose Describe was answered by an error (the pipeline failed
    /// before it) is described again next time: its columns are not known yet.
    @Test func aPreparedStatementIsDescribedUntilTheServerTellsItsColumns() throws {
        let (server, connection) = try Self.connected()
        let statement = PostgresStatement("SELECT 1 AS one", prepared: true)
        try server.say(
            Wire.message("1", []) + Wire.message("2", []) + Wire.error("57014", "canceling statement") + Wire.readyForQuery())
        #expect(throws: PostgresConnectionError.self) { try connection.pipeline([statement]) }
        #expect(frontendMessages(server.heard()).map(\.type) == ["P", "B", "D", "E", "S"])
        try server.say(rowsAnswer(["one"], [["1"]], tag: "SELECT 1", parsed: false))
        #expect(try connection.pipeline([statement])[0].rows == [["1"]])
        #expect(frontendMessages(server.heard()).map(\.type) == ["B", "D", "E", "S"])
        try server.say(Wire.message("2", []) + Wire.dataRow(["1"]) + Wire.commandComplete("SELECT 1") + Wire.readyForQuery())
        #expect(try connection.pipeline([statement])[0].rows == [["1"]])
        #expect(frontendMessages(server.heard()).map(\.type) == ["B", "E", "S"])
    }

    @Test func aStatementWhoseParseFailedIsParsedAgainNextTime() throws {
        let (server, connection) = try Self.connected()
        let statement = PostgresStatement("SELEC 1", prepared: true)
        try server.say(Wire.error("42601", "syntax error at or near \"SELEC\"") + Wire.readyForQuery())
        #expect(throws: PostgresConnectionError.self) { try connection.pipeline([statement]) }
        _ = server.heard()
        try server.say(Wire.error("42601", "syntax error at or near \"SELEC\"") + Wire.readyForQuery())
        #expect(throws: PostgresConnectionError.self) { try connection.pipeline([statement]) }
        #expect(frontendMessages(server.heard()).map(\.type) == ["P", "B", "D", "E", "S"])
    }

    @Test func aParseErrorSkipsToReadyForQuery() throws {
        let (server, connection) = try Self.connected()
        try server.say(Wire.error("42601", "syntax error at or near \"SELEC\"") + Wire.readyForQuery())
        #expect(throws: PostgresConnectionError.self) { try connection.query("SELEC 1") }
        #expect(connection.isOpen)
    }

    @Test func aFatalErrorInAQueryClosesTheConnection() throws {
        let (server, connection) = try Self.connected()
        try server.say(Wire.error("57P01", "terminating connection due to administrator command", severity: "FATAL"))
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
        guard case .server(let serverError) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(serverError.sqlState == .adminShutdown)
        #expect(!connection.isOpen)
        #expect(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
    }

    @Test func aFatalErrorAfterAnOrdinaryOneIsReported() throws {
        let (server, connection) = try Self.connected()
        try server.say(
            Wire.message("1", []) + Wire.error("42P01", "relation \"x\" does not exist")
                + Wire.error("57P01", "terminating connection due to administrator command", severity: "FATAL"))
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT * FROM x") }
        #expect(error.serverError?.sqlState == .adminShutdown)
        #expect(!connection.isOpen)
    }

    @Test(arguments: [
        // Out of order: BindComplete before ParseComplete; rows before a description; a
        // second ReadyForQuery's worth of messages after the error; a PortalSuspended we never
        // asked for; a row with the wrong number of values; binary columns.
        Wire.message("2", []),
        Wire.message("1", []) + Wire.message("2", []) + Wire.dataRow(["1"]),
        Wire.message("1", []) + Wire.message("2", []) + Wire.error("XX000", "x") + Wire.message("n", []),
        Wire.message("1", []) + Wire.message("2", []) + Wire.rowDescription(["a"]) + Wire.message("s", []),
        Wire.message("1", []) + Wire.message("2", []) + Wire.rowDescription(["a"]) + Wire.dataRow(["1", "2"]),
        Wire.message("1", []) + Wire.message("2", []) + Wire.readyForQuery(),
        Wire.message("1", []) + Wire.message("2", [])
            + Wire.message(
                "T",
                Wire.int16(1) + Wire.cString("a") + Wire.int32(0) + Wire.int16(0) + Wire.int32(23) + Wire.int16(4) + Wire.int32(-1)
                    + Wire.int16(1)),
        Wire.authentication(0),
    ])
    func aMisplacedMessageClosesTheConnection(script: [UInt8]) throws {
        let (server, connection) = try Self.connected()
        try server.say(script)
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
        guard case .unexpectedMessage = error else {
            Issue.record("\(error)")
            return
        }
        #expect(!connection.isOpen)
        let again = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
        guard case .connectionClosed = again else {
            Issue.record("\(again)")
            return
        }
    }

    @Test func aMalformedMessageClosesTheConnection() throws {
        let (server, connection) = try Self.connected()
        try server.say(Wire.message("1", []) + Wire.message("Z", length: 1_000, []))
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
        guard case .wire(.invalidLength(.readyForQuery, length: 1_000)) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(!connection.isOpen)
    }

    @Test func aValueThatIsNotUTF8ClosesTheConnection() throws {
        let (server, connection) = try Self.connected()
        try server.say(
            Wire.message("1", []) + Wire.message("2", []) + Wire.rowDescription(["a"])
                + Wire.message("D", Wire.int16(1) + Wire.int32(1) + [0xFF]))
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
        guard case .wire(.invalidUTF8(.dataRow)) = error else {
            Issue.record("\(error)")
            return
        }
    }

    @Test func aServerThatHangsUpIsClosedByServer() throws {
        let (server, connection) = try Self.connected()
        server.hangUp()
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
        guard case .closedByServer = error else {
            Issue.record("\(error)")
            return
        }
        #expect(!connection.isOpen)
    }

    // The waits below run on threads of their own: they block, and Swift's shared pool is
    // not for blocking.

    /// A thousand notices, said again and again by a server that never stops talking: a read
    /// of them never waits, where the socket checks a deadline.
    static let notices = (0..<1_000).flatMap { _ in Wire.diagnostic("N", [("S", "NOTICE"), ("C", "00000"), ("M", "again")]) }

    /// A statement past its deadline ends in `.timedOut` and a closed connection, whether the
    /// server says nothing or notices for ten seconds without a pause.
    @Test(arguments: [false, true])
    func aStatementPastItsDeadlineTimesOutAndTheConnectionCloses(serverKeepsTalking: Bool) async throws {
        let (error, waited, isOpen) = try await onOwnThread {
            let server = try ScriptedPostgresServer()
            try server.sayTrustStartup()
            var configuration = scriptedConfiguration()
            configuration.queryTimeout = .milliseconds(50)
            let connection = try server.connect(configuration)
            if serverKeepsTalking { try server.keepSaying(Self.notices, for: .seconds(10)) }
            let started = ContinuousClock.now
            let error = connectionError { () throws(PostgresConnectionError) in try connection.query("SELECT pg_sleep(10)") }
            return (error, ContinuousClock.now - started, connection.isOpen)
        }
        guard case .socket(.timedOut) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        // The deadline, and at most one read past it: not the talker's ten seconds.
        #expect(waited >= .milliseconds(50) && waited < .seconds(5))
        #expect(!isOpen)
    }

    @Test func waitingForNotificationsEndsAtItsTimeoutWhateverElseTheServerSays() async throws {
        let (notifications, waited) = try await onOwnThread {
            let (server, connection) = try Self.connected()
            try server.keepSaying(Self.notices, for: .seconds(10))
            let started = ContinuousClock.now
            let notifications = try connection.waitForNotifications(timeout: .milliseconds(50))
            let waited = ContinuousClock.now - started
            connection.close()  // the server's thread stops talking
            return (notifications, waited)
        }
        #expect(notifications.isEmpty)
        #expect(waited < .seconds(5))
    }

    @Test func aSilentServerAtStartupTimesOut() async throws {
        let error = try await onOwnThread { () -> PostgresConnectionError? in
            let server = try ScriptedPostgresServer()
            var configuration = scriptedConfiguration()
            configuration.connectTimeout = .milliseconds(50)
            do {
                _ = try PostgresConnection.start(
                    over: server.clientSocket(), configuration: configuration, deadline: .now + configuration.connectTimeout)
                return nil
            } catch let error as PostgresConnectionError {
                return error
            }
        }
        guard case .socket(.timedOut) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func aValueThatCannotBeSentLeavesTheConnectionUsable() throws {
        let (server, connection) = try Self.connected()
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT $1", ["a\0b"]) }
        guard case .encoding(.nulCharacter(in: .parameter(0))) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(server.heard().isEmpty, "nothing of the batch was sent")
        #expect(connection.isOpen)
        try server.say(rowsAnswer(["a"], [["ok"]], tag: "SELECT 1"))
        #expect(try connection.query("SELECT $1", ["ok"]).rows == [["ok"]])
    }

    // MARK: Simple queries, notifications, close

    @Test func aSimpleQueryGivesOneResultPerStatement() throws {
        let (server, connection) = try Self.connected()
        try server.say(
            Wire.commandComplete("BEGIN") + Wire.rowDescription(["n"]) + Wire.dataRow(["1"]) + Wire.commandComplete("SELECT 1")
                + Wire.message("I", []) + Wire.readyForQuery("T"))
        let results = try connection.simpleQuery("BEGIN; SELECT 1 AS n; ;")
        #expect(results.map(\.commandTag) == ["BEGIN", "SELECT 1", ""])
        #expect(results[1].rows == [["1"]])
        #expect(connection.transactionStatus == .inTransaction)
        let sent = frontendMessages(server.heard())
        #expect(sent.map(\.type) == ["Q"])
        #expect(sent.first?.body == Wire.cString("BEGIN; SELECT 1 AS n; ;"))
    }

    @Test func aSimpleQueryErrorThrowsAfterReadyForQuery() throws {
        let (server, connection) = try Self.connected()
        try server.say(Wire.commandComplete("BEGIN") + Wire.error("42P01", "relation \"nope\" does not exist") + Wire.readyForQuery("E"))
        let error = try #require(throws: PostgresConnectionError.self) { try connection.simpleQuery("BEGIN; SELECT * FROM nope") }
        guard case .server(let serverError) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(serverError.sqlState == .undefinedTable)
        #expect(connection.transactionStatus == .failedTransaction)
        #expect(connection.isOpen)
    }

    @Test func waitingForNotificationsReturnsThemAsTheyArrive() async throws {
        let (first, second, isOpen) = try await onOwnThread {
            let (server, connection) = try Self.connected()
            try server.say(Wire.notification(pid: 5, "trips", "a") + Wire.notification(pid: 5, "trips", "b"))
            let first = try connection.waitForNotifications(timeout: .seconds(5 * TestTimeout.scale))
            let second = try connection.waitForNotifications(timeout: .milliseconds(20))
            return (first.map(\.payload), second, connection.isOpen)
        }
        #expect(first == ["a", "b"])
        #expect(second.isEmpty)
        #expect(isOpen)
    }

    @Test func theErrorAServerLeftBeforeHangingUpIsReportedWhenTheNextQueryFindsItGone() throws {
        let (server, connection) = try Self.connected()
        try server.say(Wire.error("57P05", "terminating connection due to idle-session timeout", severity: "FATAL"))
        server.hangUp()
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
        guard case .server(let serverError) = error, serverError.sqlState.rawValue == "57P05" else {
            Issue.record("\(error)")
            return
        }
        #expect(!connection.isOpen)
    }

    @Test func aShutdownWhileWaitingForNotificationsIsTheServersError() throws {
        let (server, connection) = try Self.connected()
        try server.say(Wire.error("57P01", "terminating connection due to administrator command", severity: "FATAL"))
        let error = try #require(throws: PostgresConnectionError.self) {
            try connection.waitForNotifications(timeout: .seconds(5 * TestTimeout.scale))
        }
        guard case .server(let serverError) = error, serverError.sqlState == .adminShutdown else {
            Issue.record("\(error)")
            return
        }
        #expect(!connection.isOpen)
    }

    @Test func closeSaysGoodbyeOnce() throws {
        let (server, connection) = try Self.connected()
        connection.close()
        connection.close()
        #expect(!connection.isOpen)
        #expect(frontendMessages(server.heard()).map(\.type) == ["X"])
        let error = try #require(throws: PostgresConnectionError.self) { try connection.query("SELECT 1") }
        guard case .connectionClosed = error else {
            Issue.record("\(error)")
            return
        }
    }
}
