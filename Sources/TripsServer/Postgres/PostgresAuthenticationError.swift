/// Why the client could not answer the server's authentication request.
enum PostgresAuthenticationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server asked for a method this client does not speak (yet): MD5 and SCRAM until
    /// their authenticator is plugged in, Kerberos and GSSAPI for good.
    case unsupportedMethod(PostgresAuthenticationMethod)
    /// The server asked for a password and the configuration has none.
    case passwordRequired(PostgresAuthenticationMethod)
    /// The server's SASL message did not parse (a SCRAM server-first or server-final message).
    case malformedServerMessage
    /// The server's SCRAM signature did not match: it does not know the password, so it is
    /// not the server we meant to reach.
    case serverSignatureMismatch

    var description: String {
        switch self {
        case .unsupportedMethod(let method): "the server asks for \(method), which this client does not support"
        case .passwordRequired(let method): "the server asks for a \(method) and the database URL has no password"
        case .malformedServerMessage: "the server's SASL message is malformed"
        case .serverSignatureMismatch: "the server's SCRAM signature does not match: it does not know the password"
        }
    }
}
