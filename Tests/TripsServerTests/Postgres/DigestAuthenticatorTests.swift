import Testing
@testable import TripsPostgres
@testable import TripsServer

/// The default authenticator through a whole start-up with a scripted server: the bytes the
/// client sends for MD5 and SCRAM-SHA-256, and the exchanges it must refuse.
@Suite struct DigestAuthenticatorTests {
    /// The client nonce the SCRAM exchange below was computed for.
    static let nonce = "fyko+d2lbbFgONRv9qkxdawL"
    static let serverFirst = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"
    /// The client-final and server-final for password "correct horse", computed with
    ///
    ///     import hashlib, hmac, base64
    ///     nonce = "fyko+d2lbbFgONRv9qkxdawL"
    ///     server_first = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"
    ///     salted = hashlib.pbkdf2_hmac("sha256", b"correct horse", base64.b64decode("QSXCR+Q6sek8bf92"), 4096)
    ///     without = "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j"
    ///     auth = ("n=,r=" + nonce + "," + server_first + "," + without).encode()
    ///     ck = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    ///     sig = hmac.new(hashlib.sha256(ck).digest(), auth, hashlib.sha256).digest()
    ///     sk = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
    ///     print(without + ",p=" + base64.b64encode(bytes(a ^ b for a, b in zip(ck, sig))).decode())
    ///     print("v=" + base64.b64encode(hmac.new(sk, auth, hashlib.sha256).digest()).decode())
    static let clientFinal = "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=ynYz1e+hST+EC7RAUs3DMAX3bP7u5UnNPwu9fFyQb8Y="
    static let serverFinal = "v=TniF6Y/Y4iNgU+zcvauQC2d/Y9biwXTySAq1G1EYxuQ="

    static func configuration(password: String) -> PostgresConnectionConfiguration {
        var configuration = scriptedConfiguration(password: password)
        configuration.authenticator = DigestAuthenticator(clientNonce: nonce)
        return configuration
    }

    /// AuthenticationSASL offering these mechanisms.
    static func sasl(_ mechanisms: [String]) -> [UInt8] {
        Wire.authentication(10, mechanisms.flatMap(Wire.cString) + [0])
    }

    @Test func theDefaultAuthenticatorIsTheDigestOne() {
        #expect(scriptedConfiguration().authenticator is DigestAuthenticator)
    }

    /// The answer computed with
    /// `python3 -c "import hashlib; i=hashlib.md5(b's3cret'+b'trips').hexdigest(); print('md5'+hashlib.md5(i.encode()+bytes([1,2,3,4])).hexdigest())"`.
    @Test func anMD5LoginSendsTheSaltedDigest() throws {
        let server = try ScriptedPostgresServer()
        try server.say(Wire.authentication(5, [1, 2, 3, 4]))
        try server.sayTrustStartup()
        let connection = try server.connect(scriptedConfiguration(password: "s3cret", requiring: [.md5]))
        let sent = frontendMessages(server.heard(), startsWithStartup: true)
        #expect(connection.isOpen)
        #expect(sent.map(\.type) == [nil, "p"])
        #expect(sent.last?.body == Wire.cString("md58170d18d2ccbafc872af2fdbf1a1a37b"))
    }

    @Test func aSCRAMLoginReplaysTheExchange() throws {
        let server = try ScriptedPostgresServer()
        try server.say(
            Self.sasl(["SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"]) + Wire.authentication(11, Array(Self.serverFirst.utf8))
                + Wire.authentication(12, Array(Self.serverFinal.utf8)))
        try server.sayTrustStartup()
        let connection = try server.connect(Self.configuration(password: "correct horse"))
        let sent = frontendMessages(server.heard(), startsWithStartup: true)
        #expect(connection.isOpen)
        #expect(sent.map(\.type) == [nil, "p", "p"])
        let clientFirst = Array("n,,n=,r=\(Self.nonce)".utf8)
        #expect(sent[1].body == Wire.cString("SCRAM-SHA-256") + Wire.int32(Int32(clientFirst.count)) + clientFirst)
        #expect(sent[2].body == Array(Self.clientFinal.utf8))
    }

    /// A valid signature, for another password: the server does not know ours.
    @Test func aWrongServerSignatureIsRefused() throws {
        let server = try ScriptedPostgresServer()
        try server.say(
            Self.sasl(["SCRAM-SHA-256"]) + Wire.authentication(11, Array(Self.serverFirst.utf8))
                + Wire.authentication(12, Array("v=+F5nFVKn/fZMML3mhSjVK7lE8aMGo71D5kiOF/VzRxk=".utf8)))
        try server.sayTrustStartup()
        let error = try #require(throws: PostgresConnectionError.self) {
            try server.connect(Self.configuration(password: "correct horse"))
        }
        guard case .authentication(.serverSignatureMismatch) = error else {
            Issue.record("\(error)")
            return
        }
    }

    @Test func aServerFirstMessageWithAnotherNonceKeepsSCRAMsReason() throws {
        let server = try ScriptedPostgresServer()
        try server.say(Self.sasl(["SCRAM-SHA-256"]) + Wire.authentication(11, Array("r=someone-else,s=QSXCR+Q6sek8bf92,i=4096".utf8)))
        let error = try #require(throws: PostgresConnectionError.self) {
            try server.connect(Self.configuration(password: "correct horse"))
        }
        guard case .authentication(.scram(.nonceMismatch)) = error else {
            Issue.record("\(error)")
            return
        }
    }

    /// Channel binding needs TLS, which this client does not have.
    @Test func onlySCRAMSHA256PLUSIsRefused() throws {
        let server = try ScriptedPostgresServer()
        try server.say(Self.sasl(["SCRAM-SHA-256-PLUS"]))
        let error = try #require(throws: PostgresConnectionError.self) {
            try server.connect(Self.configuration(password: "correct horse"))
        }
        guard case .authentication(.unsupportedMethod(.sasl(let mechanisms))) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(mechanisms == ["SCRAM-SHA-256-PLUS"])
        #expect(frontendMessages(server.heard(), startsWithStartup: true).count == 1)
    }
}
