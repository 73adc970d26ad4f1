/// Why bytes from the server are not a message this client can trust.
///
/// Each case names one fault. After any of them the connection is closed: the framing of
/// what follows can no longer be trusted.
package enum PostgresWireError: Error, Hashable, Sendable {
    /// A type byte this client does not know (or a COPY message it never asked for).
    case unknownMessageType(UInt8)
    /// A declared length this kind of message cannot have (below 4 for any message, or not
    /// the fixed length of, say, ReadyForQuery).
    case invalidLength(BackendMessage.Kind, length: Int)
    /// A declared length over the decoder's `maxMessageLength`.
    case messageTooLong(BackendMessage.Kind, length: Int, limit: Int)
    /// A field runs past the end of its message.
    case truncated(BackendMessage.Kind)
    /// A string has no NUL terminator before the end of its message.
    case unterminatedString(BackendMessage.Kind)
    /// A string is not valid UTF-8, though the session's client encoding is UTF8.
    case invalidUTF8(BackendMessage.Kind)
    /// Bytes left over after the message's last field.
    case trailingBytes(BackendMessage.Kind, count: Int)
    /// A negative count of columns, parameters or options.
    case invalidCount(BackendMessage.Kind, count: Int)
    /// A DataRow value length below -1 (-1 is NULL).
    case invalidValueLength(length: Int32)
    /// A RowDescription format code other than 0 (text) or 1 (binary).
    case invalidFormatCode(Int16)
    /// A ReadyForQuery status other than I, T or E.
    case invalidTransactionStatus(UInt8)
    /// An ErrorResponse or NoticeResponse without a field the protocol says is always there:
    /// severity (S), SQLSTATE (C) or message (M).
    case missingDiagnosticField(BackendMessage.Kind, code: UInt8)
    /// An SQLSTATE that is not five digits or capital letters.
    case invalidSQLState(String)
    /// More rows than a result held whole may take (`maxHeldRowBytes`): a server that never
    /// stops sending, since the answers that grow with the data are read row by row.
    case resultTooLong(limit: Int)
}

extension PostgresWireError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .unknownMessageType(let type): "unknown message type \(Self.show(type))"
        case .invalidLength(let kind, let length): "\(kind) with the invalid length \(length)"
        case .messageTooLong(let kind, let length, let limit): "\(kind) of \(length) bytes, over the limit of \(limit)"
        case .truncated(let kind): "\(kind) ends inside a field"
        case .unterminatedString(let kind): "\(kind) has a string without its NUL terminator"
        case .invalidUTF8(let kind): "\(kind) has text that is not UTF-8"
        case .trailingBytes(let kind, let count): "\(kind) has \(count) bytes after its last field"
        case .invalidCount(let kind, let count): "\(kind) with the count \(count)"
        case .invalidValueLength(let length): "DataRow value with the length \(length)"
        case .invalidFormatCode(let code): "RowDescription with the format code \(code)"
        case .invalidTransactionStatus(let status): "ReadyForQuery with the status \(Self.show(status))"
        case .missingDiagnosticField(let kind, let code): "\(kind) without its \(Self.show(code)) field"
        case .invalidSQLState(let state): "the invalid SQLSTATE \"\(state)\""
        case .resultTooLong(let limit): "rows of more than \(limit) bytes for a result held whole"
        }
    }

    /// A byte as its printable ASCII character in quotes, or in hex.
    private static func show(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16))"
    }
}
