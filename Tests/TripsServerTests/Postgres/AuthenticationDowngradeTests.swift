import Testing
@testable import TripsPostgres
@testable import TripsServer

/// A server (or someone in between) that talks the client down to a weaker login: asks for
/// the password in the clear or as MD5, lets it in without asking, or asks for a SCRAM proof
/// that is cheap to crack. Each is refused before anything of the password is sent, unless
/// the URL's `require_auth` says that method is meant.
@Suite struct AuthenticationDowngradeTests {
    /// The configuration `url` gives, for a scripted server.
    private static func configuration(_ url: String) throws -> PostgresConnectionConfiguration {
        guard var configuration = PostgresConnectionConfiguration(url: try DatabaseURL(url)) else { throw TestFailure("no user") }
        configuration.connectTimeout = .seconds(5)
        configuration.authenticator = DigestAuthenticator(clientNonce: DigestAuthenticatorTests.nonce)
        return configuration
    }

    /// Connects to a server that says `script`; answers the error, if any, and what the client sent.
    private static func connect(_ url: String, to script: [UInt8]) throws -> (error: PostgresConnectionError?, sent: [UInt8]) {
        let server = try ScriptedPostgresServer()
        try server.say(script)
        let configuration = try configuration(url)
        do {
            let connection = try server.connect(configuration)
            connection.close()
            return (nil, server.heard())
        } catch let error as PostgresConnectionError {
            return (error, server.heard())
        }
    }

    private static let trustStartup =
        Wire.authentication(0) + Wire.parameterStatus("server_version", "15.6") + Wire.message("K", Wire.int32(1) + Wire.int32(2))
        + Wire.readyForQuery()

    private static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        return bytes.count >= needle.count && (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
    }

    @Test(arguments: [
        // (the server's request, what the URL must say to allow it, the refusal without it)
        (Wire.authentication(3), "password", PostgresRequiredAuthentication.Method.password),
        (Wire.authentication(5, [1, 2, 3, 4]), "md5", .md5),
    ])
    func aCleartextOrMD5RequestGetsNothingUnlessRequireAuthAllowsIt(
        request: [UInt8], requireAuth: String, method: PostgresRequiredAuthentication.Method
    ) throws {
        let refused = try Self.connect("postgres://trips:s3cret@db/trips", to: request + Self.trustStartup)
        guard case .authentication(.notAllowed(method))? = refused.error else {
            Issue.record("\(String(describing: refused.error))")
            return
        }
        #expect(frontendMessages(refused.sent, startsWithStartup: true).count == 1, "only the startup message was sent")
        #expect(!Self.contains(refused.sent, "s3cret"))
        #expect("\(refused.error!)".contains("require_auth=\(requireAuth)"))

        let allowed = try Self.connect("postgres://trips:s3cret@db/trips?require_auth=\(requireAuth)", to: request + Self.trustStartup)
        #expect(allowed.error == nil, "\(String(describing: allowed.error))")
        #expect(frontendMessages(allowed.sent, startsWithStartup: true).map(\.type) == [nil, "p", "X"])
    }

    @Test func aServerThatSkipsAuthenticationIsRefusedWhenTheURLGivesAPassword() throws {
        let refused = try Self.connect("postgres://trips:s3cret@db/trips", to: Self.trustStartup)
        guard case .authentication(.notAllowed(.noAuthentication))? = refused.error else {
            Issue.record("\(String(describing: refused.error))")
            return
        }
        #expect(try Self.connect("postgres://trips:s3cret@db/trips?require_auth=none", to: Self.trustStartup).error == nil)
        #expect(try Self.connect("postgres://trips:s3cret@db/trips?require_auth=scram-sha-256,none", to: Self.trustStartup).error == nil)
        // Without a password there is nothing to protect: trust and peer log in.
        #expect(try Self.connect("postgres://trips@db/trips", to: Self.trustStartup).error == nil)
        let scramOnly = try Self.connect("postgres://trips@db/trips?require_auth=scram-sha-256", to: Self.trustStartup)
        guard case .authentication(.notAllowed(.noAuthentication))? = scramOnly.error else {
            Issue.record("\(String(describing: scramOnly.error))")
            return
        }
    }

    @Test func requireAuthWithoutSCRAMRefusesAServerThatAsksForIt() throws {
        let refused = try Self.connect(
            "postgres://trips:s3cret@db/trips?require_auth=md5", to: DigestAuthenticatorTests.sasl(["SCRAM-SHA-256"]))
        guard case .authentication(.notAllowed(.scramSHA256))? = refused.error else {
            Issue.record("\(String(describing: refused.error))")
            return
        }
    }

    /// One iteration would make the proof the client sends as cheap to crack as a bare hash.
    @Test(arguments: [1, 4095]) func aSCRAMIterationCountBelow4096IsRefusedBeforeTheProofIsSent(count: Int) throws {
        let serverFirst = "r=\(DigestAuthenticatorTests.nonce)3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=\(count)"
        let refused = try Self.connect(
            "postgres://trips:correct%20horse@db/trips",
            to: DigestAuthenticatorTests.sasl(["SCRAM-SHA-256"]) + Wire.authentication(11, Array(serverFirst.utf8)))
        guard case .authentication(.scram(.iterationCountOutOfRange))? = refused.error else {
            Issue.record("\(String(describing: refused.error))")
            return
        }
        // The startup and the client-first message; no client-final with a proof.
        #expect(frontendMessages(refused.sent, startsWithStartup: true).count == 2)
    }

    @Test func aSCRAMLoginAt4096IterationsNeedsNoRequireAuth() throws {
        let allowed = try Self.connect(
            "postgres://trips:correct%20horse@db/trips",
            to: DigestAuthenticatorTests.sasl(["SCRAM-SHA-256"])
                + Wire.authentication(11, Array(DigestAuthenticatorTests.serverFirst.utf8))
                + Wire.authentication(12, Array(DigestAuthenticatorTests.serverFinal.utf8)) + Self.trustStartup)
        #expect(allowed.error == nil, "\(String(describing: allowed.error))")
    }

    /// The server's final SCRAM message is its proof that it knows the password: a server
    /// that goes straight to AuthenticationOk after the client's proof is an impostor.
    @Test func aSCRAMServerThatSkipsItsFinalMessageIsRefused() throws {
        let refused = try Self.connect(
            "postgres://trips:correct%20horse@db/trips",
            to: DigestAuthenticatorTests.sasl(["SCRAM-SHA-256"])
                + Wire.authentication(11, Array(DigestAuthenticatorTests.serverFirst.utf8)) + Self.trustStartup)
        guard case .unexpectedMessage(.authentication)? = refused.error else {
            Issue.record("\(String(describing: refused.error))")
            return
        }
    }
}
