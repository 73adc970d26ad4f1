/// Why the client could not answer the server's authentication request.
package enum PostgresAuthenticationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server asked for a method this client does not speak: Kerberos, GSSAPI, SSPI, or
    /// SASL without SCRAM-SHA-256 (SCRAM-SHA-256-PLUS alone needs TLS, which we lack).
    case unsupportedMethod(PostgresAuthenticationMethod)
    /// The server asked for a method the configuration does not allow (`require_auth`), or
    /// let the client in without the exchange it requires: a downgrade, refused before the
    /// password is sent.
    case notAllowed(PostgresRequiredAuthentication.Method)
    /// The server asked for a password and the configuration has none.
    case passwordRequired(PostgresAuthenticationMethod)
    /// The SCRAM exchange was abandoned: a server message did not parse, its nonce was not
    /// ours, its iteration count was out of range, or it ended the exchange with `e=`.
    case scram(SCRAMError)
    /// The server's SCRAM signature did not match: it does not know the password, so it is
    /// not the server we meant to reach.
    case serverSignatureMismatch

    package var description: String {
        switch self {
        case .unsupportedMethod(let method): "the server asks for \(method), which this client does not support"
        case .notAllowed(.noAuthentication):
            "the server let this client in without authentication, which the database URL does not allow "
                + "(it gives a password, or require_auth leaves out none): add require_auth=none if that is meant"
        case .notAllowed(let method):
            "the server asks for \(method), which the database URL does not allow (without require_auth, only SCRAM-SHA-256 is): "
                + "add require_auth=\(method.rawValue) if that is meant"
        case .passwordRequired(let method): "the server asks for a \(method) and the database URL has no password"
        case .scram(let error): "the SCRAM exchange failed: \(error)"
        case .serverSignatureMismatch: "the server's SCRAM signature does not match: it does not know the password"
        }
    }
}
