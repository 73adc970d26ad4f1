import TripsPlatform

/// What the connections of one event loop share: the handler, the settings, the cached Date
/// lines, where deferred responses are delivered, and the request ids and access log.
///
/// Confined to its loop.
package final class ConnectionEnvironment {
    let handler: any HTTPHandler
    let configuration: HTTPServerConfiguration
    let sink: any HTTPResponseSink
    let dates: DateCache
    let clock: any ServerClock
    /// Issues `X-Request-ID`s; nil answers without them (connection tests compare exact bytes).
    let requestIDs: RequestIDGenerator?
    /// Issues each request's trace context, sent back as `traceparent`; nil answers without.
    let traces: TraceContextGenerator?
    /// Where each answered request is logged; nil logs nothing.
    let accessLog: AccessLog?
    /// Set when the server shuts down: every later response closes its connection.
    var isShuttingDown = false
    /// What the loop's answered requests count up to.
    let counters: LoopCounters
    /// Whether `clock` is the system clock, which `now()` then reads directly.
    private let readsSystemClock: Bool

    init(
        handler: any HTTPHandler, configuration: HTTPServerConfiguration, sink: any HTTPResponseSink,
        dates: DateCache, clock: any ServerClock = SystemClock(), requestIDs: RequestIDGenerator? = nil,
        traces: TraceContextGenerator? = nil, accessLog: AccessLog? = nil
    ) {
        self.handler = handler
        self.configuration = configuration
        self.sink = sink
        self.dates = dates
        self.clock = clock
        self.requestIDs = requestIDs
        self.traces = traces
        self.accessLog = accessLog
        counters = LoopCounters(routeCount: handler.routeLabels.count)
        readsSystemClock = clock is SystemClock
    }

    /// The clock's time, read once per answer (its duration). The system clock is read
    /// directly: a call through the existential copies it first, about fifty instructions.
    func now() -> MonotonicInstant {
        readsSystemClock ? SystemClock().now() : clock.now()
    }
}

@available(*, unavailable)
extension ConnectionEnvironment: Sendable {}
