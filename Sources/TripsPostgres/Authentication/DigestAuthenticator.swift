/// The authenticator a connection uses unless told otherwise: MD5 and SCRAM-SHA-256 with the
/// implementations in `Postgres/Authentication/`.
///
/// SCRAM-SHA-256-PLUS needs TLS channel binding; this client has no TLS, so a server that
/// offers only the `-PLUS` variant is refused rather than answered without the binding it
/// asked for.
package struct DigestAuthenticator: PostgresAuthenticator {
    /// The SCRAM client nonce. nil: a fresh random one for every exchange. Tests fix it to
    /// replay a recorded exchange; a fixed nonce anywhere else lets a captured login be replayed.
    var clientNonce: String?

    package func md5Password(user: String, password: String, salt: [UInt8]) -> String {
        String(decoding: MD5.postgreSQLPasswordAnswer(user: user, password: password, salt: salt), as: UTF8.self)
    }

    /// SCRAM-SHA-256 when the server lists it; the user name travels in the startup message,
    /// so SCRAM's own stays empty, as in libpq.
    package func startSASL(
        mechanisms: [String], user: String, password: String
    ) throws(PostgresAuthenticationError) -> any PostgresSASLExchange {
        guard mechanisms.contains(SCRAMSHA256.mechanism) else { throw .unsupportedMethod(.sasl(mechanisms: mechanisms)) }
        return SCRAMExchange(SCRAMSHA256(password: password, nonce: clientNonce ?? SCRAMSHA256.makeNonce()))
    }
}
