extension PostgresConnection {
    /// Where the start-up's authentication stands, and how to answer the server's next request.
    ///
    /// Trust needs no answer; a cleartext password is answered here; MD5 and SASL go to the
    /// configuration's `PostgresAuthenticator`. A SASL exchange must end with the server's
    /// final message (its proof that it knows the password) before AuthenticationOk counts.
    /// A request for a method the configuration does not allow (`allowedAuthentication`), and
    /// AuthenticationOk with no exchange when that is not allowed, are refused before anything
    /// of the password is sent: a server cannot talk the client down to a weaker method.
    package enum AuthenticationState {
        case waiting
        case exchanging(any PostgresSASLExchange)
        /// The client answered (a password, a digest, or a SASL exchange whose server proof
        /// checked out); only AuthenticationOk may follow.
        case exchanged
        case done

        package var isDone: Bool {
            if case .done = self { return true }
            return false
        }

        /// The message that answers `request`, or nil when none is due. A request out of turn
        /// (a SASL message outside an exchange, a second AuthenticationOk, AuthenticationOk
        /// before the server's SASL proof) is `.unexpectedMessage`.
        package mutating func answer(
            _ request: BackendMessage.Authentication, configuration: PostgresConnectionConfiguration
        ) throws(PostgresConnectionError) -> FrontendMessage? {
            let step: Step
            do {
                step = try self.step(request, configuration)
            } catch {
                throw .authentication(error)
            }
            switch step {
            case .send(let message): return message
            case .none: return nil
            case .outOfOrder: throw .unexpectedMessage(.authentication)
            }
        }

        /// What a request leads to, short of an error.
        private enum Step {
            case send(FrontendMessage)
            case none
            case outOfOrder
        }

        private mutating func step(
            _ request: BackendMessage.Authentication, _ configuration: PostgresConnectionConfiguration
        ) throws(PostgresAuthenticationError) -> Step {
            switch (self, request) {
            case (.waiting, .ok):
                guard configuration.allowedAuthentication.methods.contains(.noAuthentication) else {
                    throw .notAllowed(.noAuthentication)
                }
                self = .done
                return .none
            case (.exchanged, .ok):
                self = .done
                return .none
            case (.waiting, .cleartextPassword):
                let password = try Self.password(configuration, for: .cleartextPassword)
                self = .exchanged
                return .send(.password(password))
            case (.waiting, .md5Password(let salt)):
                let password = try Self.password(configuration, for: .md5Password)
                let digest = try configuration.authenticator.md5Password(user: configuration.user, password: password, salt: salt)
                self = .exchanged
                return .send(.password(digest))
            case (.waiting, .sasl(let mechanisms)):
                let password = try Self.password(configuration, for: .sasl(mechanisms: mechanisms))
                let exchange = try configuration.authenticator.startSASL(
                    mechanisms: mechanisms, user: configuration.user, password: password)
                self = .exchanging(exchange)
                return .send(.saslInitialResponse(mechanism: exchange.mechanism, data: exchange.initialResponse))
            case (.exchanging(var exchange), .saslContinue(let challenge)):
                let response = try exchange.respond(to: challenge)
                self = .exchanging(exchange)
                return .send(.saslResponse(response))
            case (.exchanging(var exchange), .saslFinal(let outcome)):
                try exchange.finish(with: outcome)
                self = .exchanged
                return .none
            case (.waiting, .unsupported(let code)):
                throw .unsupportedMethod(.other(code: code))
            default:
                return .outOfOrder
            }
        }

        /// The password for `method`, once the configuration allows that method.
        private static func password(
            _ configuration: PostgresConnectionConfiguration, for method: PostgresAuthenticationMethod
        ) throws(PostgresAuthenticationError) -> String {
            if let required = PostgresRequiredAuthentication.method(of: method),
                !configuration.allowedAuthentication.methods.contains(required)
            {
                throw .notAllowed(required)
            }
            guard let password = configuration.password else { throw .passwordRequired(method) }
            return password
        }
    }
}
