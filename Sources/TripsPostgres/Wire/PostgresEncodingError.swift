/// Why a frontend message could not be written: the value is ours, not the server's, so the
/// connection stays usable; nothing of the message was sent.
package enum PostgresEncodingError: Error, Hashable, Sendable {
    /// The protocol ends strings at a NUL byte, and PostgreSQL text never holds one, so a value
    /// with U+0000 cannot be sent as written.
    case nulCharacter(in: FrontendMessage.Field)
    /// Bind and Parse count parameters in 16 bits: at most 65,535.
    case tooManyParameters(count: Int)
    /// A message's length field is a signed 32-bit number: at most 2,147,483,647 bytes.
    case messageTooLong(length: Int)
}

extension PostgresEncodingError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .nulCharacter(let field): "the \(field) holds a NUL character, which PostgreSQL cannot carry"
        case .tooManyParameters(let count): "\(count) parameters, over the protocol's 65,535"
        case .messageTooLong(let length): "a message of \(length) bytes, over the protocol's 2 GiB"
        }
    }
}
