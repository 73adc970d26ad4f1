import Testing
import TripsTestSupport
@testable import TripsPlatform
@testable import TripsPostgres
@testable import TripsServer

/// Against a real server: `eval "$(scripts/lib/postgres.sh start /tmp/trips-pg)"`, then
/// `swift test --filter PostgresLiveTests`. Skipped unless the cluster's URLs are exported.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresLiveTests {
    @Test func trustOverTheUnixSocketStartsASession() async throws {
        let (user, parameters, key, status) = try await withLiveConnection { connection in
            (try connection.query("SELECT current_user").rows, connection.parameters, connection.backendKey, connection.transactionStatus)
        }
        #expect(user == [["postgres"]])
        #expect(parameters["client_encoding"] == "UTF8")
        #expect(parameters["application_name"] == "trips-live-tests")
        #expect(parameters["server_version"] != nil)
        #expect(key?.secretKey.count == 4)
        #expect(status == .idle)
    }

    @Test(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.plainURL)))
    func aCleartextPasswordOverTCPLogsIn() async throws {
        let rows = try await withLiveConnection(LiveDatabase.plainURL) { connection in
            try connection.query("SELECT current_user, current_database(), inet_server_addr()::text").rows
        }
        #expect(rows == [["trips_plain", "trips", "127.0.0.1/32"]])
    }

    /// Whether the password went in the clear, as an MD5 digest or as a SCRAM proof, the
    /// server refuses it with its own error, 28P01.
    @Test(
        .enabled(if: [LiveDatabase.plainURL, LiveDatabase.md5URL, LiveDatabase.scramURL].allSatisfy(LiveDatabase.isConfigured)),
        arguments: [LiveDatabase.plainURL, LiveDatabase.md5URL, LiveDatabase.scramURL])
    func aWrongPasswordIsInvalidPassword(variable: String) async throws {
        let error = try await onOwnThread {
            var configuration = try LiveDatabase.configuration(variable)
            configuration.password = "not the password"
            return connectionError { () throws(PostgresConnectionError) in try PostgresConnection.connect(configuration) }
        }
        #expect(error?.serverError?.sqlState == .invalidPassword, "\(String(describing: error))")
    }

    /// Values that would break SQL built by pasting text: they travel as parameters and come
    /// back byte for byte.
    static let awkwardValues: [String?] = [
        "O'Brien", "'; DROP TABLE trips_live; --", "\"quoted\"", "back\\slash", "Zürich, 東京, 🗺️", "", nil, "$1", "line\nbreak\ttab",
        String(repeating: "long ", count: 20_000),
    ]

    @Test func parametersRoundTripWithNullsUTF8AndQuotes() async throws {
        let (rows, echoed, stillThere) = try await withLiveConnection { connection in
            try connection.simpleQuery("CREATE TEMP TABLE trips_live (position int PRIMARY KEY, value text)")
            for (position, value) in Self.awkwardValues.enumerated() {
                let inserted = try connection.query("INSERT INTO trips_live (position, value) VALUES ($1, $2)", [String(position), value])
                guard inserted.commandTag == "INSERT 0 1" else { throw TestFailure(inserted.commandTag) }
            }
            let rows = try connection.query("SELECT position, value FROM trips_live ORDER BY position")
            let echoed = try connection.query("SELECT $1::text AS a, $2::int AS b, $3 AS c", [nil, "42", "it's"])
            let stillThere = try connection.query("SELECT count(*) FROM trips_live WHERE value = $1", ["'; DROP TABLE trips_live; --"])
            return (rows, echoed, stillThere)
        }
        #expect(rows.columns == ["position", "value"])
        #expect(rows.rows.map { $0[1] } == Self.awkwardValues)
        #expect(rows.rows.map { $0[0] } == Self.awkwardValues.indices.map { String($0) })
        #expect(rows.commandTag == "SELECT \(Self.awkwardValues.count)")
        #expect(echoed.columns == ["a", "b", "c"])
        #expect(echoed.rows == [[nil, "42", "it's"]])
        #expect(stillThere.rows == [["1"]])
    }

    /// Texts given as bytes go as a binary `text[]` between text values, and come back as they
    /// were: quotes, backslashes, braces, commas, "NULL", empty, several bytes a character.
    @Test func aBinaryTextArrayReadsBackAsItsTexts() async throws {
        let texts = [#"{"a":"\"q\""}"#, #"日本\"#, "", "NULL", "{,}", "Évora ✓"]
        let (rows, none) = try await withLiveConnection { connection in
            var parameters: PostgresParameters = ["before"]
            parameters.appendArray(count: texts.count, utf8: { Array(texts[$0].utf8) })
            parameters.append("after")
            let sql = "SELECT $1::text, t, $3::text FROM unnest($2::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n"
            var empty = PostgresParameters()
            empty.appendArray(count: 0, utf8: { _ in [] })
            return (try connection.query(sql, parameters), try connection.query("SELECT cardinality($1::text[])", empty))
        }
        #expect(rows.rows == texts.map { ["before", $0, "after"] })
        #expect(none.rows == [["0"]])
    }

    @Test func aPipelineRunsItsStatementsInOrderInOneRoundTrip() async throws {
        let (results, status, empty) = try await withLiveConnection { connection in
            let results = try connection.pipeline([
                PostgresStatement("BEGIN"),
                PostgresStatement("CREATE TEMP TABLE trips_pipeline (id int PRIMARY KEY, city text)"),
                PostgresStatement("INSERT INTO trips_pipeline SELECT * FROM unnest($1::int[], $2::text[])", ["{1,2}", "{Lisbon,Porto}"]),
                PostgresStatement("SELECT city FROM trips_pipeline ORDER BY id"),
                PostgresStatement(""),
            ])
            let status = connection.transactionStatus
            _ = try connection.pipeline([PostgresStatement("COMMIT")])
            return (results, status, try connection.pipeline([]))
        }
        #expect(results.map(\.commandTag) == ["BEGIN", "CREATE TABLE", "INSERT 0 2", "SELECT 2", ""])
        #expect(results[3].rows == [["Lisbon"], ["Porto"]])
        #expect(status == .inTransaction)
        #expect(empty.isEmpty)
    }

    @Test func preparedStatementsAreParsedOnceAndOutliveARollback() async throws {
        let (cities, columns, prepared, afterRollback) = try await withLiveConnection { connection in
            let select = PostgresStatement("SELECT $1::text || ' ' || $2::text AS city", prepared: true)
            var cities: [[String?]] = []
            var columns: [[String]] = []
            for country in ["Portugal", "Spain", "Poland"] {
                var statement = select
                statement.parameters = ["Lisbon", country]
                let results = try connection.pipeline([statement, statement])
                cities += results[1].rows
                columns += results.map(\.columns)
            }
            let prepared = try connection.query("SELECT statement FROM pg_prepared_statements").rows
            _ = try? connection.pipeline([
                PostgresStatement("BEGIN"), PostgresStatement("SELECT 2 AS two", prepared: true), PostgresStatement("SELECT 1/0"),
            ])
            _ = try connection.simpleQuery("ROLLBACK")
            let afterRollback = try connection.pipeline([PostgresStatement("SELECT 2 AS two", prepared: true)])[0].rows
            return (cities, columns, prepared, afterRollback)
        }
        #expect(cities == [["Lisbon Portugal"], ["Lisbon Spain"], ["Lisbon Poland"]])
        // Described by the first runs, then run without a Describe: the columns are kept.
        #expect(columns == Array(repeating: ["city"], count: 6))
        #expect(prepared == [["SELECT $1::text || ' ' || $2::text AS city"]])
        #expect(afterRollback == [["2"]])
    }

    @Test func aPipelineStopsAtTheFirstRefusalAndTheConnectionGoesOn() async throws {
        let (error, status, count) = try await withLiveConnection { connection in
            try connection.simpleQuery("CREATE TEMP TABLE trips_refused (id int PRIMARY KEY)")
            let error = connectionError { () throws(PostgresConnectionError) in
                try connection.pipeline([
                    PostgresStatement("INSERT INTO trips_refused VALUES (1)"),
                    PostgresStatement("INSERT INTO trips_refused VALUES (1)"),
                    PostgresStatement("INSERT INTO trips_refused VALUES (2)"),
                ])
            }
            let status = connection.transactionStatus
            // One implicit transaction up to the Sync: the refusal undid the first insert too.
            return (error, status, try connection.query("SELECT count(*) FROM trips_refused").rows)
        }
        #expect(error?.serverError?.sqlState == .uniqueViolation)
        #expect(status == .idle)
        #expect(count == [["0"]])
    }

    @Test func aUniqueViolationIsTypedAndTheConnectionGoesOn() async throws {
        let (first, second, afterwards, statuses) = try await withLiveConnection { connection in
            try connection.simpleQuery("CREATE TEMP TABLE trips_unique (id int PRIMARY KEY)")
            _ = try connection.query("INSERT INTO trips_unique VALUES ($1)", ["1"])
            let first = connectionError { () throws(PostgresConnectionError) in
                try connection.query("INSERT INTO trips_unique VALUES ($1)", ["1"])
            }
            var statuses = [connection.transactionStatus]
            try connection.simpleQuery("BEGIN")
            statuses.append(connection.transactionStatus)
            let second = connectionError { () throws(PostgresConnectionError) in
                try connection.query("INSERT INTO trips_unique VALUES ($1)", ["1"])
            }
            statuses.append(connection.transactionStatus)
            try connection.simpleQuery("ROLLBACK")
            statuses.append(connection.transactionStatus)
            return (first, second, try connection.query("SELECT count(*) FROM trips_unique").rows, statuses)
        }
        let error = try #require(first?.serverError)
        #expect(error.sqlState == .uniqueViolation)
        #expect(error.constraintName == "trips_unique_pkey")
        #expect(error.tableName == "trips_unique")
        #expect(error.detail == "Key (id)=(1) already exists.")
        #expect(first?.leavesConnectionUsable == true)
        #expect(second?.serverError?.sqlState == .uniqueViolation)
        #expect(afterwards == [["1"]])
        #expect(statuses == [.idle, .inTransaction, .failedTransaction, .idle])
    }

    @Test func aSyntaxErrorAndAMissingTableAreTypedAndTheConnectionGoesOn() async throws {
        let (syntax, missing, after) = try await withLiveConnection { connection in
            let syntax = connectionError { () throws(PostgresConnectionError) in try connection.query("SELEC 1") }
            let missing = connectionError { () throws(PostgresConnectionError) in
                try connection.query("SELECT * FROM no_such_table WHERE id = $1", ["1"])
            }
            return (syntax, missing, try connection.query("SELECT 1").rows)
        }
        #expect(syntax?.serverError?.sqlState.rawValue == "42601")
        #expect(missing?.serverError?.sqlState == .undefinedTable)
        #expect(after == [["1"]])
    }

    @Test func notificationsPassBetweenTwoConnections() async throws {
        let (received, senderID, none) = try await onOwnThread {
            let listener = try LiveDatabase.connect()
            let sender = try LiveDatabase.connect()
            defer {
                listener.close()
                sender.close()
            }
            try listener.simpleQuery("LISTEN trips_live_channel")
            _ = try sender.query("SELECT pg_notify($1, $2)", ["trips_live_channel", "trip 7 changed: ü'"])
            _ = try sender.query("SELECT pg_notify($1, $2)", ["trips_other_channel", "not for the listener"])
            _ = try sender.query("SELECT pg_notify($1, $2)", ["trips_live_channel", ""])
            var received: [PostgresNotification] = []
            let deadline = ContinuousClock.now + .seconds(10 * TestTimeout.scale)
            while received.count < 2, ContinuousClock.now < deadline {
                received += try listener.waitForNotifications(timeout: .seconds(10 * TestTimeout.scale))
            }
            let none = try listener.waitForNotifications(timeout: .milliseconds(50))
            return (received, sender.backendKey?.processID, none)
        }
        #expect(received.map(\.channel) == ["trips_live_channel", "trips_live_channel"])
        #expect(received.map(\.payload) == ["trip 7 changed: ü'", ""])
        #expect(received.allSatisfy { $0.processID == senderID })
        #expect(none.isEmpty)
    }

    @Test func noticesReachTheHandler() async throws {
        let notices = try await withLiveConnection { connection in
            var notices: [String] = []
            connection.noticeHandler = { notices.append("\($0.severity) \($0.sqlState): \($0.message)") }
            try connection.simpleQuery("DROP TABLE IF EXISTS trips_never_created")
            return notices
        }
        #expect(notices == ["NOTICE 00000: table \"trips_never_created\" does not exist, skipping"])
    }

    @Test func aSimpleQueryRunsSeveralStatements() async throws {
        let results = try await withLiveConnection { connection in
            try connection.simpleQuery("BEGIN; SELECT 1 AS one, NULL AS nothing; COMMIT")
        }
        #expect(results.map(\.commandTag) == ["BEGIN", "SELECT 1", "COMMIT"])
        #expect(results[1].columns == ["one", "nothing"])
        #expect(results[1].rows == [["1", nil]])
    }

    @Test func largeRowsAndManyRowsCrossManyReads() async throws {
        let (large, many) = try await withLiveConnection { connection in
            (
                try connection.query("SELECT repeat($1, 3000000)", ["ab"]).rows,
                try connection.query("SELECT n, md5(n::text) FROM generate_series(1, 20000) AS n").rows
            )
        }
        #expect(large.first?.first??.utf8.count == 6_000_000)
        #expect(many.count == 20_000)
        #expect(many.last?.first == "20000")
    }

    @Test func aStatementTimeoutIsQueryCanceled() async throws {
        let (error, after) = try await withLiveConnection { connection in
            _ = try connection.query("SELECT set_config('statement_timeout', $1, false)", ["50"])
            let error = connectionError { () throws(PostgresConnectionError) in try connection.query("SELECT pg_sleep(5)") }
            return (error, try connection.query("SELECT 2").rows)
        }
        #expect(error?.serverError?.sqlState == .queryCanceled)
        #expect(after == [["2"]])
    }

    @Test func aQueryPastTheClientsDeadlineIsCanceledAndTheConnectionClosed() async throws {
        let (error, isOpen, locked) = try await onOwnThread {
            var configuration = try LiveDatabase.configuration(LiveDatabase.socketURL)
            configuration.queryTimeout = .milliseconds(100)
            let connection = try PostgresConnection.connect(configuration)
            // Takes a lock for the session, then would hold it for a minute.
            let error = connectionError { () throws(PostgresConnectionError) in
                try connection.query("SELECT pg_advisory_lock(7340001), pg_sleep(60)")
            }
            // Canceled, the server ends the statement, finds the session gone and lets the lock go;
            // without the cancel, this would wait out its lock_timeout.
            let other = try LiveDatabase.connect()
            defer { other.close() }
            _ = try other.query("SELECT set_config('lock_timeout', '20s', false)")
            let locked = try other.query("SELECT pg_advisory_lock(7340001), pg_advisory_unlock(7340001)").rows
            return (error, connection.isOpen, locked)
        }
        guard case .socket(.timedOut) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(!isOpen)
        #expect(locked == [["", "t"]])
    }

    @Test func aTerminatedSessionReportsTheAdministratorsShutdown() async throws {
        let (error, isOpen) = try await onOwnThread {
            let victim = try LiveDatabase.connect()
            let administrator = try LiveDatabase.connect()
            defer { administrator.close() }
            let pid = String(victim.backendKey?.processID ?? 0)
            _ = try administrator.query("SELECT pg_terminate_backend($1::int, 5000)", [pid])
            let error = connectionError { () throws(PostgresConnectionError) in try victim.query("SELECT 1") }
            return (error, victim.isOpen)
        }
        #expect(error?.serverError?.sqlState == .adminShutdown)
        #expect(!isOpen)
    }

    @Test(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.md5URL)))
    func anMD5UserLogsIn() async throws {
        let rows = try await withLiveConnection(LiveDatabase.md5URL) { connection in
            try connection.query("SELECT current_user, current_database()").rows
        }
        #expect(rows == [["trips_md5", "trips"]])
    }

    /// The same users, without the `require_auth` their URLs carry: the client refuses the
    /// server's request for an MD5 digest or a cleartext password and sends neither.
    @Test(
        .enabled(if: [LiveDatabase.plainURL, LiveDatabase.md5URL].allSatisfy(LiveDatabase.isConfigured)),
        arguments: [
            (LiveDatabase.plainURL, PostgresRequiredAuthentication.Method.password), (LiveDatabase.md5URL, .md5),
        ])
    func aCleartextOrMD5LoginIsRefusedWithoutRequireAuth(variable: String, method: PostgresRequiredAuthentication.Method) async throws {
        let error = try await onOwnThread {
            var configuration = try LiveDatabase.configuration(variable)
            #expect(configuration.requiredAuthentication?.methods == [method], "scripts/lib/postgres.sh's URL allows it")
            configuration.requiredAuthentication = nil
            return connectionError { () throws(PostgresConnectionError) in try PostgresConnection.connect(configuration) }
        }
        guard case .authentication(.notAllowed(method))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.scramURL)))
    func aSCRAMUserLogsIn() async throws {
        let rows = try await withLiveConnection(LiveDatabase.scramURL) { connection in
            try connection.query("SELECT current_user, current_database(), inet_server_addr()::text").rows
        }
        #expect(rows == [["trips", "trips", "127.0.0.1/32"]])
    }
}
