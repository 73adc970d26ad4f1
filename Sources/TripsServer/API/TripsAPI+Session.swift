import TripsDomain
import TripsFormats
import TripsHTTP

/// Signing a browser in and out: a browser sends no bearer token when it follows a link, so a
/// token given once in the page's form becomes a session cookie (`BrowserSessions`,
/// `SessionCookie`), which then counts as the token (`AccessPolicy`).
extension TripsAPI {
    /// `GET /session`: whether this browser is signed in (JSON), or, for a browser, the page
    /// to sign in or out.
    func showSession(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let name = access?.sessionName(request)
        let position = try choosePosition(for: request) { [.json, .html] }
        guard position == 0 else {
            let content: SignInPage.Content = name.map { .signedIn(name: $0) } ?? .form(next: "/trips", failed: false)
            return signInPage(content, status: .ok, wwwAuthenticate: nil, request)
        }
        var json = JSONWriter()
        json.appendRaw(name == nil ? #"{"signedIn":false"# : #"{"signedIn":true,"name":"#)
        if let name { json.appendString(name) }
        json.appendRaw("}")
        return HTTPResponse(
            status: .ok, headerFields: [.contentType: MediaType.json.contentTypeValue, .cacheControl: "no-store", .vary: "Accept"],
            body: json.bytes)
    }

    /// `POST /session`: the form's token begins a session, whose cookie the answer sets: 303 to
    /// the form's `next`, or 204 without one. Any session the browser had ends (a new id on
    /// every sign-in). 401 for a token that is none of this server's (for a browser, the page
    /// again, saying so); 404 when the server has no tokens.
    func signIn(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let form = try SessionForm(request)
        guard let access else { throw .noSignIn }
        guard let token = form.token else { throw .invalidForm("token", "Sign in with token=TOKEN, one of this server's tokens.") }
        guard let name = access.tokens.name(for: token.utf8) else {
            if form.next != nil, prefersPage(request) {
                let error = APIError.wrongSignInToken
                return signInPage(
                    .form(next: form.next ?? "/trips", failed: true), status: error.status,
                    wwwAuthenticate: error.headerFields[.wwwAuthenticate], request)
            }
            throw .wrongSignInToken
        }
        for value in SessionCookie.values(in: request) { access.sessions.end(value) }
        let cookie: String
        do {
            cookie = try access.sessions.begin(for: name)
        } catch {
            throw APIError(.serviceUnavailable, "The server could not make a session (no random bytes); try again.")
        }
        let isSecure = SessionCookie.isSecure(request)
        return sessionAnswer(SessionCookie.beginning(cookie, lifetime: access.sessions.lifetime, isSecure: isSecure), next: form.next)
    }

    /// `POST /session/end`: signs the browser out; its session ends here, not only in the
    /// browser, so a copy of the cookie is worth nothing after. 303 to the form's `next`, or
    /// 204; the same when it was not signed in.
    func signOut(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let form = request.body.isEmpty ? SessionForm() : try SessionForm(request)
        for value in SessionCookie.values(in: request) { access?.sessions.end(value) }
        return sessionAnswer(SessionCookie.ending(isSecure: SessionCookie.isSecure(request)), next: form.next)
    }

    /// 303 to `next`, or 204, setting the cookie; never stored by a cache.
    private func sessionAnswer(_ setCookie: String, next: String?) -> HTTPResponse {
        var fields: HTTPFields = [.setCookie: setCookie, .cacheControl: "no-store"]
        guard let next else { return HTTPResponse(status: .noContent, headerFields: fields) }
        fields[.location] = next
        return HTTPResponse(status: .seeOther, headerFields: fields)
    }

    /// Whether the client would rather see a page than a problem document: a browser that
    /// follows a link or posts a form.
    func prefersPage(_ request: HTTPRequest) -> Bool {
        ContentNegotiation.choose([.problemJSON, .plainText, .html], accept: request.headerFields) == 2
    }

    /// The error as an answer: a 401 for a browser's `GET` of a page is the page to sign in,
    /// which comes back here once signed in; every other error a problem document.
    func errorResponse(_ error: APIError, to request: HTTPRequest, requestID: IssuedRequestID?) -> HTTPResponse {
        guard error.status == .unauthorized, access != nil, request.method == .get, prefersPage(request) else {
            return error.response(accept: request.headerFields.values(for: .accept), requestID: requestID)
        }
        let next = SessionForm.isOwnPath(request.target) ? request.target : "/trips"
        return signInPage(
            .form(next: next, failed: false), status: error.status, wwwAuthenticate: error.headerFields[.wwwAuthenticate], request)
    }

    /// The page to sign in or out, with the page's security fields, never stored by a cache.
    private func signInPage(
        _ content: SignInPage.Content, status: HTTPStatus, wwwAuthenticate: String?, _ request: HTTPRequest
    ) -> HTTPResponse {
        let language = requestedLanguage(request)
        var fields = Self.pageSecurityFields
        fields[.contentType] = MediaType.html.contentTypeValue
        fields[.cacheControl] = "no-store"
        Self.describeLanguage(language, in: &fields)
        fields[.wwwAuthenticate] = wwwAuthenticate
        return HTTPResponse(status: status, headerFields: fields, body: SignInPage(content: content, language: language).render())
    }
}

extension APIError {
    /// 401: the form's token is none of this server's.
    static let wrongSignInToken: APIError = {
        var error = APIError.unauthorized(invalidToken: true)
        error.detail = "This token is none of this server's: sign in with one from its --tokens file."
        error.member = "token"
        return error
    }()

    /// 404: a server without tokens lets anyone do anything; there is no one to sign in as.
    static let noSignIn = APIError(.notFound, "This server has no tokens (no --tokens), so there is nothing to sign in to.")
}
