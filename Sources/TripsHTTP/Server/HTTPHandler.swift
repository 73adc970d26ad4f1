/// What the server calls with each request.
///
/// `handle` runs on an event loop thread and must not block. Answer at once with `.now`: that
/// path costs no allocation and no thread hop. To answer later (after a disk sync, say) return
/// `.later` with a closure that receives an `HTTPResponder`; the closure runs right away on the
/// loop, should hand the responder to other work, and that work calls `respond` from any thread:
///
///     final class Hello: HTTPHandler {
///         func handle(_ request: HTTPRequest, context: inout RequestContext) -> HTTPReply {
///             if request.path == "/slow" {
///                 return .later { responder in
///                     DispatchQueue.global().async { responder.respond(HTTPResponse(status: .accepted)) }
///                 }
///             }
///             return .now(HTTPResponse(status: .ok, body: Array("hello".utf8)))
///         }
///     }
///
/// Responses go out in request order: while a `.later` is pending, the connection reads no
/// further request (pipelined bytes wait in its buffer, as in swift-nio's pipelining handler).
///
/// A class: each request calls it through the loop's `any HTTPHandler`, and a struct's
/// existential (a large one, boxed) was copied out and destroyed around every call, some 130
/// instructions a request.
package protocol HTTPHandler: AnyObject, Sendable {
    /// Answers `request`; what the access log and the metrics should know of it besides the
    /// answer (its user, its route) goes in `context`.
    func handle(_ request: HTTPRequest, context: inout RequestContext) -> HTTPReply
    /// The routes the server's metrics count requests by (route templates, say): a request's
    /// `RequestContext.routeLabel` indexes into them, and one without counts under the last.
    var routeLabels: [String] { get }
    /// The final answer to a request that asked for `Expect: 100-continue`, when its head alone
    /// already refuses it (a missing token, say); nil lets the client send its content. Asked
    /// before `100 Continue` is written, so a refused client is told so instead of being told
    /// to send a body that would be thrown away (RFC 9110 §10.1.1).
    func refusal(beforeContent head: HTTPRequest, context: inout RequestContext) -> HTTPResponse?
    /// The most content `head`'s request may carry, when its route takes more (or less) than
    /// the configured `maxBodyLength`; nil for that. Asked of every request with content as
    /// soon as its head is read: a larger declared `Content-Length` is refused with 413 before
    /// the content is read, and chunked content is cut off there.
    func contentLimit(for head: HTTPRequest) -> Int?
}

extension HTTPHandler {
    package var routeLabels: [String] { ["all"] }
    package func refusal(beforeContent head: HTTPRequest, context: inout RequestContext) -> HTTPResponse? { nil }
    package func contentLimit(for head: HTTPRequest) -> Int? { nil }
}

/// A handler's answer: a response now, a promise of one, or a stream.
package enum HTTPReply {
    case now(HTTPResponse)
    /// Called at once, on the loop, with the responder to complete from any thread.
    case later((HTTPResponder) -> Void)
    /// The response's head now, then content that keeps coming: `start.initial`, then every
    /// message the hub publishes after `start.sequence`, chunked, with a heartbeat comment
    /// when idle, until the client leaves, falls too far behind, or the server shuts down.
    case stream(HTTPResponse, HTTPStreamStart)
}

extension HTTPReply {
    /// Passes the response this reply answers with through `change`, whenever it comes: now,
    /// later (through the responder), or as a stream's head.
    package mutating func changeResponse(_ change: @escaping @Sendable (inout HTTPResponse) -> Void) {
        switch self {
        case .now(var response):
            change(&response)
            self = .now(response)
        case .later(let start):
            self = .later { responder in
                start(
                    responder.mapping { response in
                        var response = response
                        change(&response)
                        return response
                    })
            }
        case .stream(var head, let start):
            change(&head)
            self = .stream(head, start)
        }
    }
}
