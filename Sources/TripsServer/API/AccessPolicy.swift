import TripsHTTP

/// Which requests need credentials, and whose they are: a bearer token (RFC 6750), or the
/// session cookie of a browser that signed in with one (`POST /session`).
///
/// With tokens, every request that changes something needs them; `isPrivate` makes reads
/// need them too. Routes marked `needsNoCredentials` never do (the probes, the page's
/// assets, signing in and out), nor does a CORS preflight (`OPTIONS`): browsers send it
/// without credentials.
struct AccessPolicy: Sendable {
    let tokens: AccessTokens
    let isPrivate: Bool
    /// The browsers signed in with a token: their session cookie stands for it.
    let sessions: BrowserSessions

    /// The name of the token the request carries, or its session was signed in with (nil when
    /// it needs none and has none); 401 when it needs one and has none, or carries a token
    /// that is no token. `route` is the one that answers the request's method, if any.
    ///
    /// A bearer token wins over a cookie. A change made with a cookie must come from this
    /// server's own page (403 otherwise): the browser attaches the cookie by itself, so a
    /// page of another origin on the same site (`SameSite=Strict` lets those through) must
    /// not be able to spend it.
    func authorize(_ request: HTTPRequest, route: Route?) throws(APIError) -> String? {
        let traits = route?.traits ?? []
        if traits.contains(.needsNoCredentials) { return nil }
        let needsCredentials = !request.method.onlyReads || (isPrivate && request.method != .options)
        if let credentials = request.headerFields[.authorization] {
            try request.refuseRepeated(.authorization)
            // `Bearer TOKEN`, the scheme in any case (RFC 9110 §11.1).
            let parts = credentials.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                guard let name = tokens.name(for: parts[1].utf8) else { throw .unauthorized(invalidToken: true) }
                return name
            }
        }
        guard request.method != .options, let name = sessionName(request) else {
            if needsCredentials { throw .unauthorized(invalidToken: false) }
            return nil
        }
        if !request.method.onlyReads && !CORSPolicy.isFromOwnPage(request) { throw .crossSiteCookie }
        return name
    }

    /// The name of the token the request's session cookie was signed in with, while the
    /// session lasts; nil without one (a cookie that is malformed, forged, signed out or
    /// expired is no cookie).
    func sessionName(_ request: HTTPRequest) -> String? {
        SessionCookie.values(in: request).lazy.compactMap { sessions.name(for: $0) }.first
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
                : "This needs a bearer token: send Authorization: Bearer TOKEN (or, in a browser, sign in at /session).")
        error.headerFields[.wwwAuthenticate] = #"Bearer realm="trips""# + (invalidToken ? #", error="invalid_token""# : "")
        return error
    }

    /// 403: a change made with a session cookie, not from this server's own page.
    static let crossSiteCookie = APIError(
        .forbidden,
        "A change made with a session cookie must come from this server's own page (Origin or Sec-Fetch-Site: same-origin); a script sends Authorization: Bearer instead."
    )
}

extension HTTPStatus {
    static let unauthorized = HTTPStatus(code: 401, reasonPhrase: "Unauthorized")
}
