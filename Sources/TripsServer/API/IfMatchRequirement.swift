import TripsHTTP

/// `--require-if-match`: for teams that want no blind writes, a change of trips or of the list
/// must say which version it was made against (`If-Match` with the ETag it read, or `*`), or
/// it gets 428 Precondition Required (RFC 6585 §3) before its content is read.
///
/// Changes of trips or of the list are every unsafe method of a route that needs credentials
/// for it: `/trips`, `/trips/{id}`, its photo, `/favorites…`, reorder and sort. Signing in and
/// out (`/session`) are the only changes that need none, and change no trip.
enum IfMatchRequirement {
    /// Whether `route` changes trips or the list.
    static func applies(to route: Route) -> Bool {
        !route.method.onlyReads && !route.traits.contains(.needsNoCredentials)
    }

    /// 428 for a change of trips without `If-Match`.
    static func check(_ request: HTTPRequest, route: Route) throws(APIError) {
        if applies(to: route), !request.headerFields.contains(.ifMatch) { throw .preconditionRequired }
    }
}

extension APIError {
    /// 428: `--require-if-match` and a change without `If-Match`.
    static let preconditionRequired = APIError(
        .preconditionRequired,
        "This server takes no blind changes: send If-Match with the ETag your change was made against (or * for any version)."
    )
}
