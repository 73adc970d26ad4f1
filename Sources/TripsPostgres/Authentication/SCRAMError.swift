/// Why a SCRAM-SHA-256 exchange was abandoned. Each case names one problem; after any of
/// them the client must not go on logging in over this connection.
///
/// https://www.rfc-editor.org/rfc/rfc5802#section-7
package enum SCRAMError: Error, Hashable, Sendable {
    /// A server message is not UTF-8 `a=value` attributes separated by commas, or its nonce
    /// is not printable ASCII.
    case malformedMessage
    /// The attribute the grammar puts here (`r`, `s`, `i` or `v`) is absent or out of order.
    case missingAttribute(Character)
    /// The server sent `m=`, a mandatory extension no client can know (RFC 5802 §5.1).
    case unsupportedMandatoryExtension
    /// The combined nonce does not begin with our nonce, or adds nothing to it: a replayed
    /// or forged server-first-message.
    case nonceMismatch
    /// The salt is empty or not canonical base64.
    case invalidSalt
    /// The iteration count is not a decimal number without sign or leading zeros.
    case invalidIterationCount
    /// The iteration count is below 4,096 (the proof would be cheap to crack) or above the
    /// client's maximum (a server could otherwise keep the client hashing for hours).
    case iterationCountOutOfRange
    /// The `v=` value is not canonical base64 of 32 bytes.
    case invalidServerSignature
    /// The server's signature is not the one the password gives: the server does not know
    /// the password, or the messages were tampered with.
    case serverSignatureMismatch
    /// The server ended the exchange with `e=` and this value, such as `invalid-proof`.
    case serverError(String)
    /// A message was asked for or given at the wrong step of the exchange.
    case outOfOrder
}

extension SCRAMError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .malformedMessage: "a server message is malformed"
        case .missingAttribute(let name): "the server's message lacks its \(name)= attribute"
        case .unsupportedMandatoryExtension: "the server requires an extension (m=) this client does not know"
        case .nonceMismatch: "the server's nonce does not continue ours"
        case .invalidSalt: "the server's salt is not base64"
        case .invalidIterationCount: "the server's iteration count is not a number"
        case .iterationCountOutOfRange:
            "the server's iteration count is below \(SCRAMSHA256.minimumIterationCount) or above the client's maximum"
        case .invalidServerSignature: "the server's signature is not base64 of 32 bytes"
        case .serverSignatureMismatch: "the server's signature does not match"
        case .serverError(let reason): "the server ended the exchange: \(reason)"
        case .outOfOrder: "a message came at the wrong step"
        }
    }
}
