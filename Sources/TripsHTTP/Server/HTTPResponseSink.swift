/// Where a deferred response goes: the event loop's mailbox (or a test's).
package protocol HTTPResponseSink: Sendable {
    func deliver(_ response: HTTPResponse, to connection: ConnectionID)
}
