/// Why the client could not answer the server's authentication request.
enum PostgresAuthenticationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server asked for a method this client does not speak: Kerberos, GSSAPI, SSPI, or
    /// SASL without SCRAM-SHA-256 (SCRAM-SHA-256-PLUS alone needs TLS, which we lack).
    case unsupportedMethod(PostgresAuthenticationMethod)
    /// The server asked for a password and the configuration has none.
    case passwordRequired(PostgresAuthenticationMethod)
    /// The SCRAM exchange was abandoned: a server message did not parse, its nonce was not
    /// ours, its iteration count was out of range, or it ended the exchange with `e=`.
    case scram(SCRAMError)
    /// The server's SCRAM signature did not match: it does not know the password, so it is
    /// not the server we meant to reach.
    case serverSignatureMismatch

    var description: String {
        switch self {
        case .unsupportedMethod(let method): "the server asks for \(method), which this client does not support"
        case .passwordRequired(let method): "the server asks for a \(method) and the database URL has no password"
        case .scram(let error): "the SCRAM exchange failed: \(error)"
        case .serverSignatureMismatch: "the server's SCRAM signature does not match: it does not know the password"
        }
    }
}
