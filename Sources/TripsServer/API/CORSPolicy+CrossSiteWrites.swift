import TripsHTTP

/// Writes from other sites' pages (cross-site request forgery): a page the user visits can
/// send a POST without asking first, as a form with `enctype=text/plain` or a `no-cors`
/// fetch, with any body; the browser does not let it read the answer, but the change is made.
extension CORSPolicy {
    /// 403 for a request that changes something (POST, PUT, PATCH, DELETE) from a browser page
    /// this server does not allow, whatever its token: its `Origin` is neither the request's
    /// own (`http://` or `https://` and its `Host`) nor one `--cors-origin` allows, or, from
    /// an origin CORS does not allow, its `Sec-Fetch-Site` is `cross-site` or `same-site`.
    /// Requests with neither field (curl, scripts, generated clients) are not browsers' and
    /// pass; so do the page's own, which are same-origin.
    ///
    /// https://fetch.spec.whatwg.org/#origin-header, https://www.w3.org/TR/fetch-metadata/
    func refuseCrossSiteWrite(_ request: HTTPRequest) throws(APIError) {
        guard !request.method.onlyReads else { return }
        try request.refuseRepeated(.origin)
        try request.refuseRepeated(.secFetchSite)
        guard allowedOrigin(for: request) == nil else { return }
        if let origin = request.headerFields[.origin], !Self.isOwnOrigin(origin, host: request.headerFields[.host]) {
            throw .crossSiteWrite
        }
        if let site = request.headerFields[.secFetchSite], site == "cross-site" || site == "same-site" { throw .crossSiteWrite }
    }

    /// Whether the browser says the request comes from this server's own page: its `Origin`
    /// is the request's own and its `Sec-Fetch-Site`, if any, `same-origin`, or, without
    /// `Origin`, `Sec-Fetch-Site: same-origin`. A request with neither says nothing, and is
    /// not. What a change made with a session cookie must show (`AccessPolicy`).
    static func isFromOwnPage(_ request: HTTPRequest) -> Bool {
        let site = request.headerFields[.secFetchSite]
        guard site == nil || site == "same-origin" else { return false }
        guard let origin = request.headerFields[.origin] else { return site != nil }
        return isOwnOrigin(origin, host: request.headerFields[.host])
    }

    /// Whether `origin` is the request's own: `http://` or `https://` (behind a proxy that
    /// ends TLS) and then exactly its `Host`, which a browser's `Origin` spells the same way.
    private static func isOwnOrigin(_ origin: String, host: String?) -> Bool {
        guard let host else { return false }
        let scheme = ["http://", "https://"].first { origin.utf8.starts(with: $0.utf8) }
        guard let scheme else { return false }
        let authority = origin.utf8.dropFirst(scheme.utf8.count)
        return authority.count == host.utf8.count && zip(authority, host.utf8).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }
}

extension APIError {
    /// 403: a change from a page of another site.
    static let crossSiteWrite = APIError(
        .forbidden,
        "A page of another site may not make changes here (its Origin or Sec-Fetch-Site says so): send the change from this server's own page, from an origin --cors-origin allows, or without a browser."
    )
}
