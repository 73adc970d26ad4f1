/// A message from a PostgreSQL server (protocol 3.0), parsed and validated.
///
/// Text fields are UTF-8 (the client asks for `client_encoding` UTF8); row values stay bytes
/// until the connection reads them as text.
/// https://www.postgresql.org/docs/current/protocol-message-formats.html
package enum BackendMessage: Sendable, Hashable {
    /// 'R': a request to authenticate, or the news that it succeeded.
    case authentication(Authentication)
    /// 'S': a run-time setting the client should know, at start-up or whenever it changes.
    case parameterStatus(name: String, value: String)
    /// 'K': what a CancelRequest for this session would quote.
    case backendKeyData(BackendKeyData)
    /// 'Z': the server waits for the next query; the session is in this transaction state.
    case readyForQuery(PostgresTransactionStatus)
    /// 'T': the columns of the rows to come.
    case rowDescription([ColumnDescription])
    /// 'D': one row's values; nil is SQL NULL.
    case dataRow([[UInt8]?])
    /// 'C': a statement finished; the tag names it (`INSERT 0 1`, `SELECT 3`, `BEGIN`).
    case commandComplete(tag: String)
    /// 'I': the query string was empty.
    case emptyQueryResponse
    /// 'E': the statement failed; the server discards messages up to the next Sync.
    case errorResponse(PostgresDiagnostic)
    /// 'N': a warning or a note, which may arrive at any time.
    case noticeResponse(PostgresDiagnostic)
    /// '1': Parse succeeded.
    case parseComplete
    /// '2': Bind succeeded.
    case bindComplete
    /// '3': Close succeeded.
    case closeComplete
    /// 'n': the statement returns no rows.
    case noData
    /// 't': the type OIDs of a prepared statement's parameters.
    case parameterDescription([UInt32])
    /// 's': Execute stopped at its row limit.
    case portalSuspended
    /// 'A': a NOTIFY on a channel this session listens to.
    case notificationResponse(PostgresNotification)
    /// 'v': the server speaks an older minor version, or ignored some `_pq_.` options.
    case negotiateProtocolVersion(newestVersion: Int32, unrecognizedOptions: [String])

    /// The authentication requests (and the final "ok") a server sends during start-up.
    package enum Authentication: Sendable, Hashable {
        /// Code 0: authenticated.
        case ok
        /// Code 3: send the password as it is.
        case cleartextPassword
        /// Code 5: send `md5` + md5(md5(password + user) + salt), in hex.
        case md5Password(salt: [UInt8])
        /// Code 10: start a SASL exchange with one of these mechanisms (`SCRAM-SHA-256`).
        case sasl(mechanisms: [String])
        /// Code 11: the server's next SASL message (server-first for SCRAM).
        case saslContinue([UInt8])
        /// Code 12: the server's last SASL message (server-final: its signature).
        case saslFinal([UInt8])
        /// Any other code: Kerberos (2), GSSAPI (7, 8), SSPI (9), which Trips does not speak.
        case unsupported(code: Int32)
    }

    /// BackendKeyData's fields.
    package struct BackendKeyData: Sendable, Hashable {
        package let processID: Int32
        /// 4 bytes in protocol 3.0 (up to 256 from 3.2).
        package let secretKey: [UInt8]
    }

    /// One column of a RowDescription.
    package struct ColumnDescription: Sendable, Hashable {
        package let name: String
        /// The OID of the table the column comes from, or 0.
        package let tableOID: UInt32
        /// The column's attribute number in that table, or 0.
        package let columnNumber: Int16
        /// The OID of the column's data type (25 is `text`, 23 is `int4`).
        package let typeOID: UInt32
        /// The type's size (`pg_type.typlen`); negative for variable width.
        package let typeSize: Int16
        /// The type modifier (`pg_attribute.atttypmod`), such as a `varchar`'s length.
        package let typeModifier: Int32
        /// 0 for text, 1 for binary.
        package let formatCode: Int16
    }

    /// What kind of message this is.
    package var kind: Kind {
        switch self {
        case .authentication: .authentication
        case .parameterStatus: .parameterStatus
        case .backendKeyData: .backendKeyData
        case .readyForQuery: .readyForQuery
        case .rowDescription: .rowDescription
        case .dataRow: .dataRow
        case .commandComplete: .commandComplete
        case .emptyQueryResponse: .emptyQueryResponse
        case .errorResponse: .errorResponse
        case .noticeResponse: .noticeResponse
        case .parseComplete: .parseComplete
        case .bindComplete: .bindComplete
        case .closeComplete: .closeComplete
        case .noData: .noData
        case .parameterDescription: .parameterDescription
        case .portalSuspended: .portalSuspended
        case .notificationResponse: .notificationResponse
        case .negotiateProtocolVersion: .negotiateProtocolVersion
        }
    }
}
