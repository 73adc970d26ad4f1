/// An HTTP connection as its event loop drives it: replies are deferred responses, and the
/// stream is the server-sent events of an `HTTPStreamHub`.
extension HTTPConnection: LoopConnection {
    typealias Reply = HTTPResponse
    typealias StreamMessage = HTTPStreamHub.Message

    var lifecycle: LoopConnectionLifecycle {
        switch state {
        case .closed: .closed
        case .closing: .closing
        case .open, .awaitingResponse, .streaming, .lingering: .open
        }
    }

    /// A stream ends cleanly; any other connection closes if idle, or after its next response.
    func beginShutdown(output: inout [UInt8]) {
        if isStreaming {
            endStream(output: &output)
        } else {
            closeIfIdle()
        }
    }
}
