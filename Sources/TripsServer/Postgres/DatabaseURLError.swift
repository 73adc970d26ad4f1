/// Why a `postgres://` URL was refused: each case names one fault, and the message says where.
enum DatabaseURLError: Error, Hashable, Sendable {
    /// The URL starts with neither `postgres://` nor `postgresql://`.
    case unsupportedScheme
    /// A `%` not followed by two hex digits.
    case invalidPercentEncoding(Component)
    /// A percent-decoded part that is not UTF-8.
    case invalidUTF8(Component)
    /// A part that holds a NUL (`%00`), which no PostgreSQL string can.
    case invalidCharacter(Component)
    /// A port that is not a number from 1 to 65535.
    case invalidPort(String)
    /// A host list (`host1,host2`): failover between hosts is not built in.
    case multipleHosts
    /// A host with an unclosed `[`, or text after `]` that is not a port.
    case invalidHost(String)
    /// A `#fragment`, which means nothing to PostgreSQL and hints at a mangled URL.
    case fragment
    /// A query parameter this client does not know (libpq refuses them too).
    case unknownParameter(String)
    /// A query parameter given twice.
    case duplicateParameter(String)
    /// A query item without `=`, or with a value its parameter cannot take.
    case invalidParameter(name: String, value: String)
    /// `sslmode` other than `disable`: TLS is not built into this client, and a URL that
    /// asks for it must not silently connect in the clear.
    case tlsNotSupported(sslmode: String)
    /// A socket folder (`host=`) that is not an absolute path.
    case relativeSocketDirectory(String)
    /// A socket file path longer than `sockaddr_un` holds (107 bytes).
    case socketPathTooLong(String)

    /// The part of the URL a fault is in.
    enum Component: Sendable, Hashable, CustomStringConvertible {
        case user
        case password
        case host
        case database
        case parameter(String)

        var description: String {
            switch self {
            case .user: "user name"
            case .password: "password"
            case .host: "host"
            case .database: "database name"
            case .parameter(let name): "parameter \(name)"
            }
        }
    }
}

extension DatabaseURLError: CustomStringConvertible {
    /// One sentence for a log line or a start-up failure. It never quotes the password.
    var description: String {
        switch self {
        case .unsupportedScheme: "the database URL must start with postgres:// or postgresql://"
        case .invalidPercentEncoding(let component): "the \(component) in the database URL has a % not followed by two hex digits"
        case .invalidUTF8(let component): "the \(component) in the database URL is not UTF-8 once percent-decoded"
        case .invalidCharacter(let component): "the \(component) in the database URL holds a NUL character"
        case .invalidPort(let port): "the database URL's port \"\(port)\" is not a number from 1 to 65535"
        case .multipleHosts: "the database URL names several hosts; only one is supported"
        case .invalidHost(let host): "the database URL's host \"\(host)\" is malformed"
        case .fragment: "the database URL has a #fragment"
        case .unknownParameter(let name): "the database URL's parameter \"\(name)\" is not supported"
        case .duplicateParameter(let name): "the database URL gives the parameter \"\(name)\" twice"
        case .invalidParameter(let name, let value): "the database URL's parameter \(name)=\"\(value)\" is not valid"
        case .tlsNotSupported(let mode):
            "the database URL asks for sslmode=\(mode), but TLS is not built in: use sslmode=disable on a trusted network or a Unix socket"
        case .relativeSocketDirectory(let path): "the database URL's socket folder \"\(path)\" is not an absolute path"
        case .socketPathTooLong(let path): "the socket path \"\(path)\" is longer than the 107 bytes a Unix socket address holds"
        }
    }
}
