import TripsHTTP

/// Which requests need a bearer token (RFC 6750), and whose token a request carries.
///
/// With tokens, every request that changes something needs one; `isPrivate` makes reads
/// need one too, except the probes (`/livez`, `/readyz`, `/health`). A CORS preflight
/// (`OPTIONS`) never does: browsers send it without credentials.
struct AccessPolicy: Sendable {
    let tokens: AccessTokens
    let isPrivate: Bool

    /// The name of the token the request carries (nil when it needs none and has none);
    /// 401 when it needs one and has none, or carries one that is no token. `route` is the
    /// one that answers the request's method, if any: a probe needs no token to be read.
    func authorize(_ request: HTTPRequest, route: Route?) throws(APIError) -> String? {
        let isProbe = route?.traits.contains(.probe) ?? false
        let needsToken = !request.method.onlyReads || (isPrivate && request.method != .options && !isProbe)
        guard let credentials = request.headerFields[.authorization] else {
            if needsToken { throw .unauthorized(invalidToken: false) }
            return nil
        }
        // `Bearer TOKEN`, the scheme in any case (RFC 9110 §11.1).
        let parts = credentials.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            if needsToken { throw .unauthorized(invalidToken: false) }
            return nil
        }
        guard let name = tokens.name(for: parts[1].utf8) else { throw .unauthorized(invalidToken: true) }
        return name
    }
}

extension APIError {
    /// 401 with `WWW-Authenticate: Bearer realm="trips"`, and `error="invalid_token"` when a
    /// token was sent that is none of ours.
    static func unauthorized(invalidToken: Bool) -> APIError {
        var error = APIError(
            .unauthorized,
            invalidToken
                ? "The bearer token is not valid: send Authorization: Bearer with one of this server's tokens."
                : "This needs a bearer token: send Authorization: Bearer TOKEN.")
        error.headerFields[.wwwAuthenticate] = #"Bearer realm="trips""# + (invalidToken ? #", error="invalid_token""# : "")
        return error
    }
}

extension HTTPStatus {
    static let unauthorized = HTTPStatus(code: 401, reasonPhrase: "Unauthorized")
}
