/// What kind of refusal a problem document reports: a stable `type` URI, `/problems/<name>`,
/// that a client matches on instead of the title or the detail, which may be reworded.
///
/// The URI is a relative reference (RFC 9457 §3.1.1 allows one): it resolves against the
/// request's own URL, so it names this server however the client reached it (through a
/// proxy, under another name) without the server having to know its public origin. Each
/// kind is described at its URI (`GET /problems/<name>`).
///
/// The HTTP layer's own refusals are declared here; the API declares the rest beside them.
package struct ProblemType: Sendable, Hashable {
    /// The last segment of the URI: lowercase words joined by hyphens (`stale-if-match`).
    package let name: String
    /// One or two sentences on what the refusal means and what a client can do about it.
    package let summary: String

    package init(_ name: String, _ summary: String) {
        self.name = name
        self.summary = summary
    }

    /// Where the kind is described, and what a problem document's `type` says.
    package var uri: String { Self.pathPrefix + name }

    /// The path every kind's URI starts with.
    package static let pathPrefix = "/problems/"
}

extension ProblemType {
    package static let malformedRequest = ProblemType(
        "malformed-request",
        "The request does not follow HTTP's syntax or this API's rules for a field or a query parameter; the detail says which. Fix the request before sending it again."
    )
    package static let tooLarge = ProblemType(
        "too-large",
        "Part of the request is over this server's limit: its target, its header section or its content. Send less.")
    package static let requestTimeout = ProblemType(
        "request-timeout",
        "The request did not arrive in time: its header section, or its content, came too slowly or stalled. Send it again, at once.")
    package static let notImplemented = ProblemType(
        "not-implemented",
        "The request uses a method, an HTTP version, a transfer coding or an expectation this server does not implement.")
    package static let internalError = ProblemType(
        "internal-error", "The server failed to answer the request as it should have. Try again; if it keeps happening, report it.")
}
