/// The ways of logging in this client goes along with, as libpq's `require_auth` names them:
/// a server that asks for anything else, or lets the client in without the proof required,
/// is refused before the password leaves the client.
///
/// Without `require_auth`, only SCRAM-SHA-256 is allowed, which never shows the server the
/// password and proves the server knows it too; and no authentication at all (trust, peer)
/// only when the URL has no password, since a server that skips asking for one it was given
/// may be an impostor. A cleartext password or an MD5 digest (which whoever asked for it can
/// crack offline) is sent only when `require_auth` says so.
///
///     postgres://trips:secret@db/trips?require_auth=md5
///     postgres://trips:secret@db/trips?require_auth=scram-sha-256,none
///
/// https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNECT-REQUIRE-AUTH
package struct PostgresRequiredAuthentication: Sendable, Hashable {
    /// A way of logging in, by its libpq name.
    package enum Method: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// `password` in pg_hba.conf: the password itself, in the clear.
        case password
        /// `md5`: an MD5 digest of the password, the user name and a salt.
        case md5
        /// `scram-sha-256`: a SASL exchange in which each side proves it knows the password.
        case scramSHA256 = "scram-sha-256"
        /// `trust` or `peer`: AuthenticationOk with no exchange at all.
        case noAuthentication = "none"

        package var description: String {
            switch self {
            case .password: "a cleartext password"
            case .md5: "an MD5 password"
            case .scramSHA256: "SCRAM-SHA-256"
            case .noAuthentication: "no authentication"
            }
        }
    }

    /// Methods libpq knows and this client does not speak.
    package enum Unsupported: String, Sendable, Hashable {
        case gss, sspi
    }

    package var methods: Set<Method>

    package init(_ methods: Set<Method>) {
        self.methods = methods
    }

    /// What a URL without `require_auth` allows.
    package static func defaults(hasPassword: Bool) -> PostgresRequiredAuthentication {
        hasPassword ? PostgresRequiredAuthentication([.scramSHA256]) : PostgresRequiredAuthentication([.scramSHA256, .noAuthentication])
    }

    /// A `require_auth` value: one method, or several separated by commas.
    package init(parsing value: String) throws(DatabaseURLError) {
        var methods: Set<Method> = []
        for name in value.split(separator: ",", omittingEmptySubsequences: false) {
            if let method = Method(rawValue: String(name)) {
                methods.insert(method)
            } else if let unsupported = Unsupported(rawValue: String(name)) {
                throw .unsupportedAuthenticationMethod(unsupported)
            } else if name.hasPrefix("!") {
                throw .negatedAuthenticationMethod
            } else {
                throw .invalidParameter(.requireAuth)
            }
        }
        self.init(methods)
    }

    /// The method a server's request stands for; nil for one this client does not speak
    /// (refused as unsupported whatever this says).
    package static func method(of request: PostgresAuthenticationMethod) -> Method? {
        switch request {
        case .cleartextPassword: .password
        case .md5Password: .md5
        case .sasl: .scramSHA256
        case .other: nil
        }
    }
}
