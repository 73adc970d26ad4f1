import Foundation
import TripsPlatform

/// The client side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it: a value
/// that turns the server's two messages into ours, and never touches a socket.
///
///     var scram = SCRAMSHA256(password: password)
///     send(SCRAMSHA256.mechanism, scram.clientFirstMessage)  // SASLInitialResponse
///     send(try scram.clientFinalMessage(serverFirst: received))  // SASLResponse
///     try scram.verify(serverFinal: receivedFinal)  // AuthenticationSASLFinal
///
/// Without channel binding: the GS2 header is `n,,`, which libpq also sends when it does not
/// use TLS. PostgreSQL takes the user name from the startup message and ignores the one
/// here, so libpq sends it empty (`n=,r=…`) and so do we by default.
///
/// https://www.rfc-editor.org/rfc/rfc5802
/// https://www.postgresql.org/docs/current/sasl-authentication.html
package struct SCRAMSHA256: Sendable {
    /// The SASL mechanism name PostgreSQL lists in AuthenticationSASL.
    static let mechanism = "SCRAM-SHA-256"
    /// Most iterations a server may ask for by default. PostgreSQL's default is 4,096; ten
    /// million already cost seconds of hashing, and more would let a hostile server stall us.
    static let defaultMaximumIterationCount = 10_000_000
    /// Fewest iterations a server may ask for: PostgreSQL's default, and RFC 7677's minimum.
    /// A server that asks for fewer makes the proof we send cheap to crack offline (an
    /// impostor asking for one iteration gets a password guessable at billions a second).
    static let minimumIterationCount = 4096
    /// The GS2 header for a client without channel binding, and its base64 (`c=biws`).
    private static let gs2Header = Array("n,,".utf8)

    /// Our first message, the SASLInitialResponse data: `n,,n=<user>,r=<nonce>`.
    let clientFirstMessage: [UInt8]
    private let clientNonce: [UInt8]
    private let password: [UInt8]
    private let maximumIterationCount: Int
    private var stage = Stage.awaitingServerFirst

    private enum Stage: Sendable {
        case awaitingServerFirst
        case awaitingServerFinal(serverSignature: [UInt8])
    }

    /// - Parameters:
    ///   - password: Prepared with `SASLprep` as PostgreSQL prepares it.
    ///   - user: Empty for PostgreSQL; RFC examples name one. `=` and `,` are escaped.
    ///   - nonce: Printable ASCII without commas; tests inject one, otherwise 18 random bytes.
    ///   - maximumIterationCount: Above it, the server's iteration count is refused.
    init(
        password: String,
        user: String = "",
        nonce: String = SCRAMSHA256.makeNonce(),
        maximumIterationCount: Int = SCRAMSHA256.defaultMaximumIterationCount
    ) {
        let nonce = Array(nonce.utf8)
        precondition(!nonce.isEmpty && nonce.allSatisfy(SCRAMSHA256.isPrintable), "a SCRAM nonce is printable ASCII without commas")
        self.clientNonce = nonce
        self.password = SASLprep.preparedPassword(password)
        self.maximumIterationCount = maximumIterationCount
        self.clientFirstMessage = Self.gs2Header + Array("n=".utf8) + Self.escapedUserName(user) + Array(",r=".utf8) + nonce
    }

    /// A fresh client nonce: 18 bytes from the system's random source, in base64, as libpq does.
    static func makeNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<18).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// Our second message, the SASLResponse to AuthenticationSASLContinue: the proof that we
    /// know the password, `c=biws,r=<nonce>,p=<proof>`.
    ///
    /// - Complexity: The server's iteration count in SHA-256 compressions, twice over.
    mutating func clientFinalMessage(serverFirst: [UInt8]) throws(SCRAMError) -> [UInt8] {
        guard case .awaitingServerFirst = stage else { throw .outOfOrder }
        let server = try ServerFirst(serverFirst, clientNonce: clientNonce, maximumIterationCount: maximumIterationCount)
        let withoutProof = Array("c=\(Data(Self.gs2Header).base64EncodedString()),r=".utf8) + server.nonce
        // AuthMessage, RFC 5802 §3: the bare first message, the server's, ours without proof.
        var authMessage = Array(clientFirstMessage.dropFirst(Self.gs2Header.count))
        authMessage.append(UInt8(ascii: ","))
        authMessage += serverFirst
        authMessage.append(UInt8(ascii: ","))
        authMessage += withoutProof
        let saltedPassword = PBKDF2.deriveKey(
            password: password, salt: server.salt, iterations: server.iterationCount, byteCount: SHA256.digestByteCount)
        let clientKey = HMAC.authenticationCode(for: Array("Client Key".utf8), key: saltedPassword)
        let clientSignature = HMAC.authenticationCode(for: authMessage, key: SHA256.hash(clientKey))
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = HMAC.authenticationCode(for: Array("Server Key".utf8), key: saltedPassword)
        stage = .awaitingServerFinal(serverSignature: HMAC.authenticationCode(for: authMessage, key: serverKey))
        return withoutProof + Array(",p=".utf8) + Array(Data(proof).base64EncodedString().utf8)
    }

    /// Checks the server's last message, the AuthenticationSASLFinal data: only a server that
    /// knows the password (its ServerKey) can sign this exchange.
    func verify(serverFinal: [UInt8]) throws(SCRAMError) {
        guard case .awaitingServerFinal(let expected) = stage else { throw .outOfOrder }
        let received = try ServerFinal(serverFinal).serverSignature
        guard Self.constantTimeEquals(received, expected) else { throw .serverSignatureMismatch }
    }

    /// `value` in RFC 5802's printable: ASCII 0x21–0x7E except the comma.
    static func isPrintable(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && byte != UInt8(ascii: ",")
    }

    /// RFC 5802's saslname: `=` becomes `=3D` and `,` becomes `=2C`.
    private static func escapedUserName(_ user: String) -> [UInt8] {
        var escaped: [UInt8] = []
        for byte in user.utf8 {
            switch byte {
            case UInt8(ascii: "="): escaped += Array("=3D".utf8)
            case UInt8(ascii: ","): escaped += Array("=2C".utf8)
            default: escaped.append(byte)
            }
        }
        return escaped
    }

    /// Compares without an early exit, so the time taken says nothing about where a forged
    /// signature first differs.
    private static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
