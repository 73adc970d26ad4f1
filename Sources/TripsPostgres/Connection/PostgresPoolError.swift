/// Why `PostgresConnectionPool.lease` gave no connection.
package enum PostgresPoolError: Error, Sendable, CustomStringConvertible {
    /// Connecting failed, now or at the last attempt, whose backoff has not passed yet: the
    /// database is down or unreachable, or it (or whoever answered) was refused, such as an
    /// authentication method the URL does not allow.
    case unreachable(PostgresConnectionError)
    /// Every connection stayed leased for as long as the caller would wait.
    case busy(capacity: Int)
    /// The pool was closed.
    case closed

    package var description: String {
        switch self {
        case .unreachable(let error): "no connection to PostgreSQL could be made: \(error)"
        case .busy(let capacity): "all \(capacity) PostgreSQL connections are in use"
        case .closed: "the PostgreSQL connections are closed"
        }
    }
}
