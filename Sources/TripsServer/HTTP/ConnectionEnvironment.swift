/// What the connections of one event loop share: the handler, the settings, the cached Date
/// lines, and where deferred responses are delivered.
///
/// Confined to its loop.
final class ConnectionEnvironment {
    let handler: any HTTPHandler
    let configuration: HTTPServerConfiguration
    let sink: any HTTPResponseSink
    let dates: DateCache
    /// Set when the server shuts down: every later response closes its connection.
    var isShuttingDown = false

    init(
        handler: any HTTPHandler, configuration: HTTPServerConfiguration, sink: any HTTPResponseSink,
        dates: DateCache
    ) {
        self.handler = handler
        self.configuration = configuration
        self.sink = sink
        self.dates = dates
    }
}

@available(*, unavailable)
extension ConnectionEnvironment: Sendable {}
