/// What a handler tells the connection about a request besides its answer, for the access
/// log and the metrics (none of it is sent), and the id the connection gave the request.
///
/// The connection hands one to `HTTPHandler.handle` and keeps it with the request until its
/// answer is written, a deferred one too, so a response holds only what goes on the wire.
package struct RequestContext: Sendable {
    /// Who the request was made as (a token's name), for the access log.
    package var user: String?
    /// Which of the handler's `routeLabels` the metrics count the answer under; nil: the last.
    package var routeLabel: Int?
    /// The request's `X-Request-ID`, for a problem document's `instance`; nil when the server
    /// issues no ids.
    package internal(set) var requestID: IssuedRequestID?

    package init(user: String? = nil, routeLabel: Int? = nil) {
        self.user = user
        self.routeLabel = routeLabel
    }
}
