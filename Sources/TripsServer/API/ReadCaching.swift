import TripsDomain
import TripsHTTP

/// What reads of the list and of a trip (JSON, text and the page) tell caches (RFC 9111):
/// `Cache-Control: no-cache`, so a cache may keep the answer but asks again with its ETag
/// before each reuse (a 304 costs a few bytes); `private, no-cache` when the answer is for
/// whoever sent credentials, so no shared cache keeps it for anyone else.
///
/// Without tokens the server reads no credentials: every client gets the same answer, and
/// `Vary` is as it was. With tokens the answer depends on `Authorization` and on the session
/// cookie (`Vary` says so): under `--private` every read needs them and is private; otherwise
/// a read that carries a bearer token or the session cookie is private, one without is not.
/// Every value is spelled once, here: a read picks one, it builds none.
struct ReadCaching: Sendable {
    static let shared = "no-cache"
    static let privately = "private, no-cache"

    /// The server has tokens: answers depend on the credentials a request carries.
    let dependsOnCredentials: Bool
    /// `--private`: every read needs credentials, so every answer is private.
    let isPrivate: Bool

    init(access: AccessPolicy?) {
        dependsOnCredentials = access != nil
        isPrivate = access?.isPrivate ?? false
    }

    /// Whether the answer to `request` is private: under `--private`, or when the request
    /// carries `Authorization` or the session cookie to a server with tokens.
    func isPrivate(_ request: HTTPRequest) -> Bool {
        guard dependsOnCredentials else { return false }
        return isPrivate || request.headerFields.contains(.authorization) || !SessionCookie.values(in: request).isEmpty
    }

    /// `Cache-Control` for an answer that is private or not.
    func cacheControl(isPrivate: Bool) -> String { isPrivate ? Self.privately : Self.shared }

    /// Where the representation cache files a read's answer: next to the shared one for a
    /// private answer when both kinds are served (a server with tokens, not `--private`), so
    /// each client gets the `Cache-Control` that is right for it, never the other's.
    func slot(_ slot: Int, isPrivate: Bool) -> Int {
        guard dependsOnCredentials, !self.isPrivate else { return slot }
        return slot * 2 + (isPrivate ? 1 : 0)
    }

    /// `Vary` of a read: `Accept`, `Accept-Language` when the request stated a language, and
    /// `Authorization, Cookie` when the answer depends on credentials.
    func vary(_ language: Language?) -> String {
        switch (language == nil, dependsOnCredentials) {
        case (true, false): "Accept"
        case (false, false): "Accept, Accept-Language"
        case (true, true): "Accept, Authorization, Cookie"
        case (false, true): "Accept, Accept-Language, Authorization, Cookie"
        }
    }

    /// Sets a read's `Cache-Control` and `Vary`, before it is cached. A paged read varies on
    /// `Prefer` too (`count=exact` adds its total: RFC 7240 §2), and is cached per preference
    /// (`RepresentationCache.ViewKey`); the whole list, which does not, is kept without it.
    func describe(_ fields: inout HTTPFields, language: Language?, isPrivate: Bool, isPaged: Bool = false) {
        fields[.cacheControl] = cacheControl(isPrivate: isPrivate)
        fields[.vary] = isPaged ? vary(language) + ", Prefer" : vary(language)
    }
}
