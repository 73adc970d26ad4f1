/// A SCRAM-SHA-256 exchange driven by the connection: `SCRAMSHA256` does the arithmetic,
/// this turns its errors into the connection's.
struct SCRAMExchange: PostgresSASLExchange {
    private var scram: SCRAMSHA256

    init(_ scram: SCRAMSHA256) { self.scram = scram }

    var mechanism: String { SCRAMSHA256.mechanism }

    var initialResponse: [UInt8] { scram.clientFirstMessage }

    mutating func respond(to challenge: [UInt8]) throws(PostgresAuthenticationError) -> [UInt8] {
        do {
            return try scram.clientFinalMessage(serverFirst: challenge)
        } catch {
            throw Self.authenticationError(error)
        }
    }

    mutating func finish(with outcome: [UInt8]) throws(PostgresAuthenticationError) {
        do {
            try scram.verify(serverFinal: outcome)
        } catch {
            throw Self.authenticationError(error)
        }
    }

    /// A wrong signature is the connection's own case (an impostor, whatever the mechanism);
    /// every other problem keeps SCRAM's reason.
    private static func authenticationError(_ error: SCRAMError) -> PostgresAuthenticationError {
        if case .serverSignatureMismatch = error { return .serverSignatureMismatch }
        return .scram(error)
    }
}
