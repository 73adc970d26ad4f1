/// Why a `postgres://` URL was refused: each case names one fault and the part it is in,
/// never the part's text, since a mistyped URL may hold the password anywhere (in a port,
/// a host, a parameter's name).
package enum DatabaseURLError: Error, Hashable, Sendable {
    /// The URL starts with neither `postgres://` nor `postgresql://`.
    case unsupportedScheme
    /// A `%` not followed by two hex digits.
    case invalidPercentEncoding(Component)
    /// A percent-decoded part that is not UTF-8.
    case invalidUTF8(Component)
    /// A part that holds a NUL (`%00`), which no PostgreSQL string can.
    case invalidCharacter(Component)
    /// A port that is not a number from 1 to 65535.
    case invalidPort
    /// A host list (`host1,host2`): failover between hosts is not built in.
    case multipleHosts
    /// A host with an unclosed `[`, text after `]` that is not a port, or characters no host
    /// name or address has.
    case invalidHost
    /// A `#fragment`, which means nothing to PostgreSQL and hints at a mangled URL.
    case fragment
    /// A query item without `=`.
    case malformedQuery
    /// A query parameter this client does not know (libpq refuses them too).
    case unknownParameter
    /// A query parameter given twice.
    case duplicateParameter(DatabaseURL.Parameter)
    /// A value its parameter cannot take.
    case invalidParameter(DatabaseURL.Parameter)
    /// `require_auth` names GSSAPI or SSPI, which this client does not speak.
    case unsupportedAuthenticationMethod(PostgresRequiredAuthentication.Unsupported)
    /// `require_auth` with `!`: methods to refuse rather than to allow.
    case negatedAuthenticationMethod
    /// `sslmode` other than `disable`: TLS is not built into this client, and a URL that
    /// asks for it must not silently connect in the clear.
    case tlsNotSupported
    /// A socket folder (`host=`) that is not an absolute path.
    case relativeSocketDirectory
    /// A socket file path longer than `sockaddr_un` holds (107 bytes).
    case socketPathTooLong

    /// The part of the URL a fault is in.
    package enum Component: Sendable, Hashable, CustomStringConvertible {
        case user
        case password
        case host
        case database
        /// The name of a query parameter, before it is known to be one.
        case parameterName
        case parameter(DatabaseURL.Parameter)

        package var description: String {
            switch self {
            case .user: "user name"
            case .password: "password"
            case .host: "host"
            case .database: "database name"
            case .parameterName: "name of a query parameter"
            case .parameter(let name): "parameter \(name.rawValue)"
            }
        }
    }
}

extension DatabaseURLError: CustomStringConvertible {
    /// One sentence for a log line or a start-up failure. It never quotes the URL.
    package var description: String {
        switch self {
        case .unsupportedScheme: "the database URL must start with postgres:// or postgresql://"
        case .invalidPercentEncoding(let component): "the \(component) in the database URL has a % not followed by two hex digits"
        case .invalidUTF8(let component): "the \(component) in the database URL is not UTF-8 once percent-decoded"
        case .invalidCharacter(let component): "the \(component) in the database URL holds a NUL character"
        case .invalidPort:
            "the database URL's port is not a number from 1 to 65535 (a password with / must be percent-encoded: %2F)"
        case .multipleHosts: "the database URL names several hosts; only one is supported"
        case .invalidHost: "the database URL's host is malformed"
        case .fragment: "the database URL has a #fragment"
        case .malformedQuery: "the database URL's query has an item without ="
        case .unknownParameter:
            "the database URL has a query parameter this server does not support (it takes "
                + DatabaseURL.Parameter.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case .duplicateParameter(let name): "the database URL gives the parameter \(name.rawValue) twice"
        case .invalidParameter(let name): "the database URL's parameter \(name.rawValue) \(Self.rule(of: name))"
        case .unsupportedAuthenticationMethod(let method):
            "the database URL's require_auth names \(method.rawValue), which this client does not support"
        case .negatedAuthenticationMethod:
            "the database URL's require_auth refuses methods with !, which this client does not support: list the ones to allow"
        case .tlsNotSupported:
            "the database URL asks for TLS (an sslmode other than disable), but TLS is not built in: use sslmode=disable "
                + "over a Unix socket, a trusted network or a TLS tunnel"
        case .relativeSocketDirectory: "the database URL's socket folder (host=) is not an absolute path"
        case .socketPathTooLong: "the database URL's socket path is longer than the 107 bytes a Unix socket address holds"
        }
    }

    /// What a parameter's value must be.
    private static func rule(of parameter: DatabaseURL.Parameter) -> String {
        switch parameter {
        case .connectTimeout: "must be whole seconds from 1 to 86400"
        case .requireAuth:
            "must be a comma-separated list of " + PostgresRequiredAuthentication.Method.allCases.map(\.rawValue).joined(separator: ", ")
        default: "is not valid"
        }
    }
}
