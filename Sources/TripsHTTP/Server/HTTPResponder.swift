import Dispatch
import Synchronization

/// Hands a response on after a transform.
private struct TransformingSink: HTTPResponseSink {
    let base: any HTTPResponseSink
    let transform: @Sendable (HTTPResponse) -> HTTPResponse

    func deliver(_ response: HTTPResponse, to connection: ConnectionID) {
        base.deliver(transform(response), to: connection)
    }
}

/// Hands a response on after a transform: on `queue` when `isHeavy` says the transform is too
/// long for the thread that answers (a store's writer, which every change waits for).
private struct OffloadingSink: HTTPResponseSink {
    let base: any HTTPResponseSink
    let isHeavy: @Sendable (HTTPResponse) -> Bool
    let queue: DispatchQueue
    let transform: @Sendable (HTTPResponse) -> HTTPResponse

    func deliver(_ response: HTTPResponse, to connection: ConnectionID) {
        guard isHeavy(response) else { return base.deliver(transform(response), to: connection) }
        queue.async { [base, transform] in base.deliver(transform(response), to: connection) }
    }
}

/// Completes one deferred request, once, from any thread.
///
/// A responder dropped without answering sends 500, so a request is never left hanging.
package final class HTTPResponder: Sendable {
    private let sink: any HTTPResponseSink
    private let connection: ConnectionID
    private let answered = Atomic<Bool>(false)
    /// The request's trace context, for the work done to answer it (a store tags its
    /// transaction with it); nil when the server issues none.
    package let trace: TraceContext?
    /// The request's `X-Request-ID`, for a problem document's `instance`; nil when the server
    /// issues no ids.
    package let requestID: IssuedRequestID?

    package init(sink: any HTTPResponseSink, connection: ConnectionID, trace: TraceContext? = nil, requestID: IssuedRequestID? = nil) {
        self.sink = sink
        self.connection = connection
        self.trace = trace
        self.requestID = requestID
    }

    /// Sends `response`; later calls are ignored.
    package func respond(_ response: HTTPResponse) {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        sink.deliver(response, to: connection)
    }

    /// A responder whose response passes through `transform` first (a handler adding fields
    /// to whatever its parts answer). This one is done then: it answers through the new one.
    package func mapping(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPResponder {
        answered.store(true, ordering: .releasing)
        return HTTPResponder(
            sink: TransformingSink(base: sink, transform: transform), connection: connection, trace: trace, requestID: requestID)
    }

    /// As `mapping`, but a response `isHeavy` names passes through `transform` on `queue`,
    /// not on the thread that answers.
    package func mapping(
        offloading isHeavy: @escaping @Sendable (HTTPResponse) -> Bool, to queue: DispatchQueue,
        _ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse
    ) -> HTTPResponder {
        answered.store(true, ordering: .releasing)
        let offloading = OffloadingSink(base: sink, isHeavy: isHeavy, queue: queue, transform: transform)
        return HTTPResponder(sink: offloading, connection: connection, trace: trace, requestID: requestID)
    }

    deinit {
        if !answered.load(ordering: .acquiring) {
            sink.deliver(
                ProblemDetails(.internalServerError, "The request was dropped without a response.", type: .internalError)
                    .response(instance: requestID?.text),
                to: connection)
        }
    }
}
