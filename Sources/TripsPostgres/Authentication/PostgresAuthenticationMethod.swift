/// A way the server asked the client to prove who it is.
package enum PostgresAuthenticationMethod: Sendable, Hashable, CustomStringConvertible {
    /// `password` in pg_hba.conf: the password itself, in the clear.
    case cleartextPassword
    /// `md5`: an MD5 digest of the password, user name and a salt.
    case md5Password
    /// `scram-sha-256` (and its channel-binding variant): a SASL exchange with these mechanisms.
    case sasl(mechanisms: [String])
    /// Kerberos, GSSAPI or SSPI, by the protocol's code.
    case other(code: Int32)

    package var description: String {
        switch self {
        case .cleartextPassword: "cleartext password"
        case .md5Password: "MD5 password"
        case .sasl(let mechanisms): "SASL (\(mechanisms.joined(separator: ", ")))"
        case .other(let code): "authentication method \(code)"
        }
    }
}
