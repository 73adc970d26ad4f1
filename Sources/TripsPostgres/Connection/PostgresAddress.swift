/// Where a PostgreSQL server listens: a TCP host and port, or a Unix socket.
package enum PostgresAddress: Sendable, Hashable, CustomStringConvertible {
    /// A host name or a numeric address (`db.internal`, `127.0.0.1`, `::1`), resolved with
    /// getaddrinfo when connecting.
    case tcp(host: String, port: Int)
    /// The folder that holds the server's socket file, `.s.PGSQL.<port>`, as libpq names it.
    case unixSocket(directory: String, port: Int)

    /// PostgreSQL's registered port.
    static let defaultPort = 5432

    /// Debian's socket folder, where libpq looks when a URL names no host.
    static let defaultSocketDirectory = "/var/run/postgresql"

    /// The longest socket path `sockaddr_un` holds, without its NUL terminator.
    static let maxSocketPathLength = 107

    var port: Int {
        switch self {
        case .tcp(_, let port), .unixSocket(_, let port): port
        }
    }

    /// The socket file's path, for a Unix socket.
    var socketPath: String? {
        guard case .unixSocket(let directory, let port) = self else { return nil }
        let folder = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        return "\(folder == "/" ? "" : folder)/.s.PGSQL.\(port)"
    }

    package var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket: socketPath ?? ""
        }
    }
}
