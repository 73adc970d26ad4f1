import TripsPlatform

/// Why a connection's operation failed, and whether the connection survived it.
///
/// After `.server` (a statement failed) and `.encoding` (a value could not be sent) the
/// connection is still usable; after every other case it is closed, because the protocol's
/// state is no longer known (see `leavesConnectionUsable`).
package enum PostgresConnectionError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an ErrorResponse. The connection stays usable unless the error
    /// was FATAL (a failed login, an administrator's shutdown).
    case server(PostgresServerError)
    /// A value could not be sent; nothing was.
    case encoding(PostgresEncodingError)
    /// The server asked for an authentication this client could not give.
    case authentication(PostgresAuthenticationError)
    /// The socket failed, or a deadline passed (`.socket(.timedOut)`).
    case socket(ClientSocketError)
    /// The server closed the connection.
    case closedByServer
    /// The server sent bytes that are not a valid message.
    case wire(PostgresWireError)
    /// The server sent a valid message where the protocol does not allow it.
    case unexpectedMessage(BackendMessage.Kind)
    /// The connection was closed, by `close()` or by an earlier failure.
    case connectionClosed

    /// Whether the connection can take the next query after this error.
    package var leavesConnectionUsable: Bool {
        switch self {
        case .server(let error): !error.endsSession
        case .encoding: true
        default: false
        }
    }

    package var description: String {
        switch self {
        case .server(let error): error.description
        case .encoding(let error): error.description
        case .authentication(let error): error.description
        case .socket(let error): "PostgreSQL connection: \(error)"
        case .closedByServer: "the PostgreSQL server closed the connection"
        case .wire(let error): "the PostgreSQL server sent a malformed message: \(error)"
        case .unexpectedMessage(let kind): "the PostgreSQL server sent \(kind) where the protocol does not allow it"
        case .connectionClosed: "the PostgreSQL connection is closed"
        }
    }
}
