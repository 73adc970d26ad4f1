/// What the connections of one event loop share (settings, caches, counters), as the loop
/// sees it: told of the loop's turns and of shutdown, and asked for a report from another
/// thread through the mailbox. Confined to its loop.
protocol LoopEnvironment: AnyObject {
    /// A copy of the loop's figures, handed to whoever asked through the mailbox.
    associatedtype Report: Sendable

    /// The loop woke from `epoll_wait`, before it handles any event.
    func loopDidWake()
    /// The loop handled every event of this wake and is about to wait again.
    func loopTurnDidEnd()
    /// A connection was accepted and closed at once: the server holds all it may.
    func connectionRefused()
    /// A read of a connection's socket found nothing there (`EAGAIN`): a system call for
    /// nothing, which the loop avoids where it knows the socket is empty.
    func readFoundNothing()
    /// The server began a graceful shutdown.
    func shutdownDidBegin()
    /// The loop's figures now, with `openConnections` connections open.
    func report(openConnections: Int) -> Report
}
