/// Answers the authentication requests that need cryptography: MD5 digests and SASL
/// (SCRAM-SHA-256). The connection handles trust and cleartext passwords itself and asks its
/// authenticator for the rest; `DigestAuthenticator` is the real one, tests script others.
/// https://www.postgresql.org/docs/current/sasl-authentication.html
package protocol PostgresAuthenticator: Sendable {
    /// The PasswordMessage text for AuthenticationMD5Password: `"md5"` followed by the hex of
    /// md5(hex(md5(password + user)) + salt).
    func md5Password(user: String, password: String, salt: [UInt8]) throws(PostgresAuthenticationError) -> String

    /// Picks a mechanism from the server's list and starts the exchange.
    func startSASL(
        mechanisms: [String], user: String, password: String
    ) throws(PostgresAuthenticationError) -> any PostgresSASLExchange
}

/// One SASL exchange, driven by the connection on its own thread:
///
///     client → SASLInitialResponse(mechanism, initialResponse)
///     server → AuthenticationSASLContinue(challenge)   respond(to:) → SASLResponse
///     server → AuthenticationSASLFinal(outcome)         finish(with:) checks it
///     server → AuthenticationOk
package protocol PostgresSASLExchange {
    /// The mechanism chosen, such as `SCRAM-SHA-256`.
    var mechanism: String { get }
    /// The client's first message (SCRAM's client-first-message).
    var initialResponse: [UInt8] { get }
    /// Answers the server's challenge (SCRAM: server-first → client-final).
    mutating func respond(to challenge: [UInt8]) throws(PostgresAuthenticationError) -> [UInt8]
    /// Checks the server's last message (SCRAM: its signature); throws if it does not hold.
    mutating func finish(with outcome: [UInt8]) throws(PostgresAuthenticationError)
}
