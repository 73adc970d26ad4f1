import Glibc

/// What an HTTP event loop's turns and shutdown mean for the connections' shared parts.
extension ConnectionEnvironment: LoopEnvironment {
    /// Keeps the cached Date line current for the answers of this turn.
    func loopDidWake() {
        dates.update(epochSeconds: time(nil))
    }

    /// Writes the access log lines of this turn in one go.
    func loopTurnDidEnd() {
        accessLog?.flush()
    }

    func connectionRefused() {
        counters.recordRefusedConnection()
    }

    func readFoundNothing() {
        counters.recordEmptyRead()
    }

    /// Every later response closes its connection.
    func shutdownDidBegin() {
        isShuttingDown = true
    }

    func report(openConnections: Int) -> LoopMetrics {
        counters.snapshot(openConnections: openConnections)
    }
}
