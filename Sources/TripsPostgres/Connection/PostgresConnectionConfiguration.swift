import Glibc

/// Where and as whom a `PostgresConnection` connects, and how long it waits.
package struct PostgresConnectionConfiguration: Sendable {
    package var address: PostgresAddress
    package var user: String
    /// Sent in the clear when the server asks for `password` (and `require_auth` allows it), or
    /// handed to the authenticator for MD5 and SCRAM. nil: the server must not ask (trust, peer).
    package var password: String?
    package var database: String
    /// Shown in `pg_stat_activity`. Default: `trips`.
    package var applicationName = "trips"
    /// From the first connect(2) to the first ReadyForQuery: the TCP or Unix connect, the
    /// start-up and authentication. Past it: `.socket(.timedOut)`. Default: 10 s.
    package var connectTimeout: Duration = .seconds(10)
    /// Longest a statement may take, from sending it to the server's ReadyForQuery (or a
    /// close's goodbye). Past it: `.socket(.timedOut)`, and the connection is closed, since
    /// the server may still be answering. Default: 30 s.
    package var queryTimeout: Duration = .seconds(30)
    /// The longest message accepted from the server (`BackendMessageDecoder.maxMessageLength`).
    /// Past it: `.wire(.messageTooLong)`. Default: 64 MiB.
    package var maxMessageLength = BackendMessageDecoder.defaultMaxMessageLength
    /// The most bytes of DataRows a `pipeline` or `simpleQuery` holds for its results (rows
    /// streamed to a body are not held). Past it: `.wire(.resultTooLong)`, and the connection
    /// is closed. Without it a server sending rows without end would fill memory until the
    /// query's timeout. Default: 64 MiB, the longest message, so one row of any length fits.
    package var maxHeldRowBytes = BackendMessageDecoder.defaultMaxMessageLength
    /// The ways of logging in the server may ask for (`require_auth`); nil: the default,
    /// SCRAM-SHA-256, and no authentication only without a password (`allowedAuthentication`).
    package var requiredAuthentication: PostgresRequiredAuthentication?
    /// Answers MD5 and SASL requests. Default: `DigestAuthenticator` (MD5, SCRAM-SHA-256);
    /// tests swap it to script an exchange.
    package var authenticator: any PostgresAuthenticator = DigestAuthenticator()

    package init(address: PostgresAddress, user: String, password: String? = nil, database: String) {
        self.address = address
        self.user = user
        self.password = password
        self.database = database
    }

    /// The URL's settings; what it leaves out falls back as in libpq: the user to the process's
    /// user name, the database to the user. nil when the URL names no user and the process's
    /// user has no name.
    package init?(url: DatabaseURL) {
        guard let user = url.user ?? Self.processUserName() else { return nil }
        self.init(address: url.address, user: user, password: url.password, database: url.database ?? user)
        if let applicationName = url.applicationName { self.applicationName = applicationName }
        if let connectTimeout = url.connectTimeout { self.connectTimeout = connectTimeout }
        requiredAuthentication = url.requiredAuthentication
    }

    /// What the server may ask for: `requiredAuthentication`, or the default for the password.
    package var allowedAuthentication: PostgresRequiredAuthentication {
        requiredAuthentication ?? .defaults(hasPassword: password != nil)
    }

    /// The name of the process's effective user, from the password database.
    package static func processUserName() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var storage = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(geteuid(), &entry, &storage, storage.count, &result)
        guard status == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }
}
