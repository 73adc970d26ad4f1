/// Why `PostgresConnectionPool.lease` gave no connection.
enum PostgresPoolError: Error, Sendable, CustomStringConvertible {
    /// Connecting failed, now or at the last attempt, whose backoff has not passed yet.
    case unreachable(PostgresConnectionError)
    /// Every connection stayed leased for as long as the caller would wait.
    case busy(capacity: Int)
    /// The pool was closed.
    case closed

    var description: String {
        switch self {
        case .unreachable(let error): "PostgreSQL cannot be reached: \(error)"
        case .busy(let capacity): "all \(capacity) PostgreSQL connections are in use"
        case .closed: "the PostgreSQL connections are closed"
        }
    }
}
