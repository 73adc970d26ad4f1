import TripsPlatform

/// When a connection next needs attention: the timeout its state runs under (the header, the
/// body's stall and pace, idle keep-alive, a write the client does not take, a stream's
/// heartbeat, lingering). `expire` acts on it.
extension HTTPConnection {
    /// When this connection next needs attention, or nil if it waits on nothing that can time out.
    func deadline() -> MonotonicInstant? {
        let timeouts = environment.configuration.timeouts
        switch state {
        case .closed:
            return nil
        case .lingering(let until):
            return until
        case .awaitingResponse:
            return pendingOutput.isEmpty ? nil : lastWriteAt + timeouts.writeStall
        case .closing:
            return lastWriteAt + timeouts.writeStall
        case .streaming:
            if !pendingOutput.isEmpty { return lastWriteAt + timeouts.writeStall }
            return (stream?.lastSentAt ?? lastWriteAt) + max(timeouts.heartbeat, .seconds(1))  // never a busy loop
        case .open:
            if !pendingOutput.isEmpty { return lastWriteAt + timeouts.writeStall }
            if parser.isReadingBody {
                let stall = lastReadAt + timeouts.bodyStall
                return contentPaceDeadline.map { min($0, stall) } ?? stall
            }
            if let requestStartedAt { return requestStartedAt + timeouts.header }
            if let idleSince { return idleSince + timeouts.idle }
            return openedAt + timeouts.header
        }
    }

    /// When the content read so far falls under the minimum average rate: the end of the grace
    /// period, or later by a second for every `minimumBodyRate` bytes received.
    private var contentPaceDeadline: MonotonicInstant? {
        let timeouts = environment.configuration.timeouts
        guard let contentStartedAt, timeouts.minimumBodyRate > 0 else { return nil }
        let earned = Duration.seconds(Double(parser.contentReceived) / Double(timeouts.minimumBodyRate))
        return contentStartedAt + max(timeouts.bodyGrace, earned)
    }
}
