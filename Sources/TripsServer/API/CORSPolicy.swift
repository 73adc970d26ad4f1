import TripsDomain
import TripsHTTP

/// Cross-origin access for browser apps on other origins (the Fetch standard's CORS), for
/// the origins configured and no others; without any, no CORS header is ever sent.
struct CORSPolicy: Sendable {
    /// Allowed origins (`https://app.example`), or `*` for any.
    let origins: [String]

    /// The request headers the API reads, which a preflight may ask to send.
    static let allowedHeaders =
        "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID, X-Request-ID, Accept-Language, Content-Language, Prefer, traceparent, tracestate"
    /// The response headers a page's script may read.
    static let exposedHeaders =
        "ETag, Location, Trips-Revision, X-Request-ID, Retry-After, Link, Content-Language, Preference-Applied, Trips-Total, traceparent, tracestate"
    /// How long a browser may keep a preflight's answer, in seconds.
    static let maxAge = "600"

    /// The value of `Access-Control-Allow-Origin` for this request, or nil (no CORS headers).
    func allowedOrigin(for request: HTTPRequest) -> String? {
        guard !origins.isEmpty, let origin = request.headerFields[.origin] else { return nil }
        if origins.contains(origin) { return origin }
        return origins.contains("*") ? "*" : nil
    }

    /// Whether the request is a preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`.
    static func isPreflight(_ request: HTTPRequest) -> Bool {
        request.method == .options && request.headerFields.contains(.origin)
            && request.headerFields.contains(.accessControlRequestMethod)
    }

    /// 204 saying what the resource allows, for an allowed origin.
    func preflight(_ resource: RouteTable.Resource, origin: String) -> HTTPResponse {
        var fields: HTTPFields = [
            .accessControlAllowOrigin: origin,
            .accessControlAllowMethods: resource.allowedMethods.map(\.rawValue).joined(separator: ", "),
            .accessControlAllowHeaders: Self.allowedHeaders,
            .accessControlMaxAge: Self.maxAge,
        ]
        fields[.vary] = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"
        return HTTPResponse(status: .noContent, headerFields: fields)
    }

    /// Adds the headers an actual response carries for an allowed origin.
    static func decorate(_ response: inout HTTPResponse, origin: String) {
        response.headerFields[.accessControlAllowOrigin] = origin
        response.headerFields[.accessControlExposeHeaders] = exposedHeaders
        response.headerFields[.vary] = response.headerFields[.vary].map { "\($0), Origin" } ?? "Origin"
    }

    /// Adds them to whatever a reply answers: now, later, or a stream's head.
    static func decorate(_ reply: inout HTTPReply, origin: String) {
        switch reply {
        case .now(var response):
            decorate(&response, origin: origin)
            reply = .now(response)
        case .later(let start):
            reply = .later { responder in
                start(
                    responder.mapping { response in
                        var response = response
                        decorate(&response, origin: origin)
                        return response
                    })
            }
        case .stream(var head, let start):
            decorate(&head, origin: origin)
            reply = .stream(head, start)
        }
    }
}
