import Testing
@testable import TripsPlatform
@testable import TripsPostgres
@testable import TripsServer

/// The connection's startup against a scripted server: trust, passwords, the authenticator
/// seam that MD5 and SCRAM go through, a refused login, a version negotiation.
@Suite struct PostgresConnectionStartupTests {
    @Test func aTrustStartupCollectsTheSettingsAndTheKey() throws {
        let server = try ScriptedPostgresServer()
        try server.sayTrustStartup()
        let connection = try server.connect()
        #expect(connection.isOpen)
        #expect(connection.parameters == ["server_version": "15.6", "client_encoding": "UTF8"])
        #expect(connection.backendKey == .init(processID: 4711, secretKey: Wire.int32(99)))
        #expect(connection.transactionStatus == .idle)

        let sent = frontendMessages(server.heard(), startsWithStartup: true)
        #expect(sent.count == 1)
        let startup = try #require(sent.first)
        #expect(startup.type == nil)
        #expect(
            startup.body
                == [0, 3, 0, 0] + Wire.cString("user") + Wire.cString("trips") + Wire.cString("database") + Wire.cString("trips")
                + Wire.cString("application_name") + Wire.cString("trips") + Wire.cString("client_encoding") + Wire.cString("UTF8") + [0])
    }

    @Test func aCleartextPasswordIsSentWhenAsked() throws {
        let server = try ScriptedPostgresServer()
        try server.say(Wire.authentication(3))
        try server.sayTrustStartup()
        let connection = try server.connect(scriptedConfiguration(password: "s3cret", requiring: [.password]))
        let sent = frontendMessages(server.heard(), startsWithStartup: true)
        #expect(connection.isOpen)
        #expect(sent.count == 2)
        #expect(sent.last?.type == "p")
        #expect(sent.last?.body == Wire.cString("s3cret"))
    }

    @Test(
        arguments: [
            // (the server's request, the password, the error)
            // Without require_auth, a password in the clear or as MD5 is not given, whatever
            // the configuration holds.
            (Wire.authentication(3), nil, PostgresAuthenticationError.notAllowed(.password)),
            (Wire.authentication(3), "pw", .notAllowed(.password)),
            (Wire.authentication(5, [1, 2, 3, 4]), nil, .notAllowed(.md5)),
            (Wire.authentication(5, [1, 2, 3, 4]), "pw", .notAllowed(.md5)),
            // With a password, a server that lets the client in without asking for it.
            (Wire.authentication(0), "pw", .notAllowed(.noAuthentication)),
            (
                Wire.authentication(10, Wire.cString("SCRAM-SHA-256") + [0]), nil,
                .passwordRequired(.sasl(mechanisms: ["SCRAM-SHA-256"]))
            ),
            (Wire.authentication(7), "pw", .unsupportedMethod(.other(code: 7))),
            (Wire.authentication(2), "pw", .unsupportedMethod(.other(code: 2))),
        ] as [([UInt8], String?, PostgresAuthenticationError)])
    func anAuthenticationThatCannotBeGivenIsATypedError(request: [UInt8], password: String?, expected: PostgresAuthenticationError) throws {
        let server = try ScriptedPostgresServer()
        try server.say(request)
        let error = try #require(throws: PostgresConnectionError.self) { try server.connect(scriptedConfiguration(password: password)) }
        guard case .authentication(let authentication) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(authentication == expected)
    }

    @Test func aRefusedLoginIsTheServersErrorWithItsSQLState() throws {
        let server = try ScriptedPostgresServer()
        try server.say(Wire.authentication(3))
        try server.say(Wire.error("28P01", "password authentication failed for user \"trips\"", severity: "FATAL"))
        let error = try #require(throws: PostgresConnectionError.self) {
            try server.connect(scriptedConfiguration(password: "wrong", requiring: [.password]))
        }
        guard case .server(let serverError) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(serverError.sqlState == .invalidPassword)
        #expect(serverError.endsSession)
        #expect(!error.leavesConnectionUsable)
    }

    /// A SASL exchange that checks the steps the connection drives it through.
    struct RecordingSASL: PostgresSASLExchange {
        var mechanism: String { "TEST-SASL" }
        var initialResponse: [UInt8] { Array("client-first".utf8) }
        var step = 0
        mutating func respond(to challenge: [UInt8]) throws(PostgresAuthenticationError) -> [UInt8] {
            guard challenge == Array("server-first".utf8), step == 0 else { throw .scram(.malformedMessage) }
            step = 1
            return Array("client-final".utf8)
        }
        mutating func finish(with outcome: [UInt8]) throws(PostgresAuthenticationError) {
            guard outcome == Array("server-final".utf8), step == 1 else { throw .serverSignatureMismatch }
            step = 2
        }
    }

    struct RecordingAuthenticator: PostgresAuthenticator {
        func md5Password(user: String, password: String, salt: [UInt8]) throws(PostgresAuthenticationError) -> String {
            "md5-\(user)-\(password)-\(salt.map(String.init).joined(separator: "."))"
        }
        func startSASL(mechanisms: [String], user: String, password: String) throws(PostgresAuthenticationError) -> any PostgresSASLExchange
        {
            guard mechanisms.contains("TEST-SASL") else { throw .unsupportedMethod(.sasl(mechanisms: mechanisms)) }
            return RecordingSASL()
        }
    }

    @Test func theAuthenticatorSeamAnswersMD5() throws {
        let server = try ScriptedPostgresServer()
        try server.say(Wire.authentication(5, [1, 2, 3, 4]))
        try server.sayTrustStartup()
        var configuration = scriptedConfiguration(password: "pw", requiring: [.md5])
        configuration.authenticator = RecordingAuthenticator()
        let connection = try server.connect(configuration)
        let sent = frontendMessages(server.heard(), startsWithStartup: true)
        #expect(connection.isOpen)
        #expect(sent.last?.type == "p")
        #expect(sent.last?.body == Wire.cString("md5-trips-pw-1.2.3.4"))
    }

    @Test func theAuthenticatorSeamDrivesASASLExchangeToItsEnd() throws {
        let server = try ScriptedPostgresServer()
        try server.say(
            Wire.authentication(10, Wire.cString("TEST-SASL") + [0]) + Wire.authentication(11, Array("server-first".utf8))
                + Wire.authentication(12, Array("server-final".utf8)))
        try server.sayTrustStartup()
        var configuration = scriptedConfiguration(password: "pw")
        configuration.authenticator = RecordingAuthenticator()
        let connection = try server.connect(configuration)
        let sent = frontendMessages(server.heard(), startsWithStartup: true)
        #expect(connection.isOpen)
        #expect(sent.map(\.type) == [nil, "p", "p"])
        #expect(sent[1].body == Wire.cString("TEST-SASL") + Wire.int32(12) + Array("client-first".utf8))
        #expect(sent[2].body == Array("client-final".utf8))
    }

    @Test(arguments: [
        // A server that skips its proof must not get in.
        Wire.authentication(10, Wire.cString("TEST-SASL") + [0]) + Wire.authentication(11, Array("server-first".utf8))
            + Wire.authentication(0),
        // SASL messages outside an exchange.
        Wire.authentication(11, Array("server-first".utf8)),
        Wire.authentication(12, Array("server-final".utf8)),
        // Authenticated twice.
        Wire.authentication(0) + Wire.authentication(0),
        // Ready before authenticated; a key before authenticated.
        Wire.readyForQuery(),
        Wire.message("K", Wire.int32(1) + Wire.int32(2)),
        // Query answers during startup.
        Wire.authentication(0) + Wire.message("1", []),
    ])
    func anAuthenticationStepOutOfTurnIsRefused(script: [UInt8]) throws {
        let server = try ScriptedPostgresServer()
        try server.say(script)
        var configuration = scriptedConfiguration(password: "pw", requiring: [.scramSHA256, .noAuthentication])
        configuration.authenticator = RecordingAuthenticator()
        let error = try #require(throws: PostgresConnectionError.self) { try server.connect(configuration) }
        guard case .unexpectedMessage = error else {
            Issue.record("\(error)")
            return
        }
    }

    @Test func aWrongServerProofFailsTheExchange() throws {
        let server = try ScriptedPostgresServer()
        try server.say(
            Wire.authentication(10, Wire.cString("TEST-SASL") + [0]) + Wire.authentication(11, Array("server-first".utf8))
                + Wire.authentication(12, Array("forged".utf8)))
        var configuration = scriptedConfiguration(password: "pw")
        configuration.authenticator = RecordingAuthenticator()
        let error = try #require(throws: PostgresConnectionError.self) { try server.connect(configuration) }
        guard case .authentication(.serverSignatureMismatch) = error else {
            Issue.record("\(error)")
            return
        }
    }

    @Test func aNegotiateProtocolVersionDuringStartupIsAccepted() throws {
        let server = try ScriptedPostgresServer()
        try server.say(Wire.message("v", Wire.int32(0x0003_0000) + Wire.int32(0)))
        try server.sayTrustStartup()
        #expect(try server.connect().isOpen)
    }
}
