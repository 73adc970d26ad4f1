/// A PostgreSQL connection URL, parsed once and checked, in libpq's syntax:
///
///     postgres://trips:s%40cret@db.internal:5433/trips?application_name=trips-web
///     postgresql://trips@[::1]/trips
///     postgres:///trips?host=/var/run/postgresql        (a Unix socket folder)
///     postgres://%2Ftmp%2Fpg/trips                      (the same, percent-encoded as the host)
///
/// Every part is percent-decoded. The user information runs to the last `@` before the
/// first `/` after it, and the password from its first `:`, so a password with `@`, `:`,
/// `?` or `#` needs no encoding (one with `/` does). The query may set the `Parameter`s,
/// which win over the same part before them; any other parameter is refused, as libpq does.
/// A host that is an absolute path is a Unix socket folder; no host at all means Debian's
/// socket folder, `/var/run/postgresql`. TLS is not built in, so an `sslmode` other than
/// `disable` is refused rather than silently ignored.
///
/// A refusal names the part that is wrong, never its text: a mistyped URL may hold the
/// password anywhere.
/// https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS
package struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    package var address: PostgresAddress
    /// nil: the URL names none; the connection uses the process's user name, as libpq does.
    package var user: String?
    package var password: String?
    /// nil: the URL names none; the server takes the user name, as libpq does.
    package var database: String?
    package var applicationName: String?
    package var connectTimeout: Duration?
    /// `require_auth`; nil: the URL names none, and the configuration's default applies.
    package var requiredAuthentication: PostgresRequiredAuthentication?

    /// The query parameters this client takes, by their libpq names.
    package enum Parameter: String, Sendable, Hashable, CaseIterable {
        case host, port, user, password, dbname
        case applicationName = "application_name"
        case connectTimeout = "connect_timeout"
        case sslmode
        case requireAuth = "require_auth"
    }

    /// Parses and checks `text`.
    package init(_ text: String) throws(DatabaseURLError) {
        var rest = Substring(text)
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgresql://") {
            rest = rest.dropFirst("postgresql://".count)
        } else if lowered.hasPrefix("postgres://") {
            rest = rest.dropFirst("postgres://".count)
        } else {
            throw .unsupportedScheme
        }

        // The user information first: its password may hold `?`, `#` and `@`.
        var user: String?
        var password: String?
        let path = rest.firstIndex(of: "/") ?? rest.endIndex
        if let at = rest[..<path].lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try Self.decoded(userInfo[..<colon], .user)
                password = try Self.decoded(userInfo[userInfo.index(after: colon)...], .password)
            } else {
                user = try Self.decoded(userInfo, .user)
            }
        }
        guard !rest.contains("#") else { throw .fragment }

        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var databasePath: Substring?
        if let slash = rest.firstIndex(of: "/") {
            databasePath = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }

        var (host, port) = try Self.hostAndPort(rest)
        var database = try databasePath.map { path throws(DatabaseURLError) in try Self.decoded(path, .database) }
        var applicationName: String?
        var connectTimeout: Duration?
        var sslMode: String?
        var requiredAuthentication: PostgresRequiredAuthentication?

        var seen: Set<Parameter> = []
        let items = query.map { $0.isEmpty ? [] : $0.split(separator: "&", omittingEmptySubsequences: false) } ?? []
        for item in items {
            guard let equals = item.firstIndex(of: "=") else { throw .malformedQuery }
            guard let name = Parameter(rawValue: try Self.decoded(item[..<equals], .parameterName)) else { throw .unknownParameter }
            let value = try Self.decoded(item[item.index(after: equals)...], .parameter(name))
            guard seen.insert(name).inserted else { throw .duplicateParameter(name) }
            switch name {
            case .host:
                guard !value.contains(",") else { throw .multipleHosts }
                host = value
            case .port: port = try Self.port(value)
            case .user: user = value
            case .password: password = value
            case .dbname: database = value
            case .applicationName: applicationName = value
            case .sslmode: sslMode = value
            case .connectTimeout:
                guard value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int(value), (1...86_400).contains(seconds)
                else { throw .invalidParameter(name) }
                connectTimeout = .seconds(seconds)
            case .requireAuth: requiredAuthentication = try PostgresRequiredAuthentication(parsing: value)
            }
        }
        if let sslMode, sslMode != "disable" { throw .tlsNotSupported }

        let resolvedPort = port ?? PostgresAddress.defaultPort
        switch host {
        case nil, "":
            address = .unixSocket(directory: PostgresAddress.defaultSocketDirectory, port: resolvedPort)
        case let host? where host.hasPrefix("/"):
            address = .unixSocket(directory: host, port: resolvedPort)
        case let host?:
            guard !host.contains("/") else { throw .relativeSocketDirectory }
            guard Self.isHostName(host) else { throw .invalidHost }
            address = .tcp(host: host, port: resolvedPort)
        }
        if let socketPath = address.socketPath, socketPath.utf8.count > PostgresAddress.maxSocketPathLength {
            throw .socketPathTooLong
        }
        self.user = user.flatMap { $0.isEmpty ? nil : $0 }
        self.password = password.flatMap { $0.isEmpty ? nil : $0 }
        self.database = database.flatMap { $0.isEmpty ? nil : $0 }
        self.applicationName = applicationName
        self.connectTimeout = connectTimeout
        self.requiredAuthentication = requiredAuthentication
    }

    /// The URL with the password left out, for logs.
    package var description: String {
        var text = "postgres://"
        if let user { text += user + (password == nil ? "" : ":***") + "@" }
        if case .tcp = address { text += address.description }
        text += "/" + (database ?? "")
        if case .unixSocket(let directory, let port) = address { text += "?host=\(directory)&port=\(port)" }
        return text
    }

    /// Splits `host[:port]`, `[v6]:port` or nothing; the host is percent-decoded.
    private static func hostAndPort(_ text: Substring) throws(DatabaseURLError) -> (host: String?, port: Int?) {
        guard !text.contains(",") else { throw .multipleHosts }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidHost }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            guard !host.isEmpty, after.isEmpty || after.hasPrefix(":") else { throw .invalidHost }
            return (host, after.isEmpty ? nil : try port(String(after.dropFirst())))
        }
        var host = text
        var port: Int?
        if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            port = try Self.port(String(text[text.index(after: colon)...]))
        }
        return (host.isEmpty ? nil : try decoded(host, .host), port)
    }

    /// A port from 1 to 65535, in plain digits.
    private static func port(_ text: String) throws(DatabaseURLError) -> Int {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = Int(text),
            (1...65_535).contains(port)
        else { throw .invalidPort }
        return port
    }

    /// A DNS name or a numeric address: no spaces, controls, or URL delimiters.
    private static func isHostName(_ host: String) -> Bool {
        !host.isEmpty && host.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && !"@?#[]/\\%".unicodeScalars.contains($0) }
    }

    /// Percent-decodes `text` into UTF-8 without NUL.
    private static func decoded(_ text: Substring, _ component: DatabaseURLError.Component) throws(DatabaseURLError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .invalidPercentEncoding(component)
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8(component) }
        guard !bytes.contains(0) else { throw .invalidCharacter(component) }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
