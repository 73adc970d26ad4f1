import Synchronization

/// Open-ended responses that many connections follow (server-sent events): a message is
/// published once, already framed, and each event loop writes the same bytes to every
/// stream it holds. No thread per subscriber, and a publisher never waits for a reader.
///
/// Messages carry a sequence number that only grows: a stream skips those at or below the
/// one it started after, so a subscriber that read a backlog up to N sees N + 1 next,
/// with no gap and no duplicate.
package final class HTTPStreamHub: Sendable {
    /// Bytes for every stream, and where they stand in the sequence.
    package struct Message: Sendable {
        package let sequence: UInt64
        package let bytes: [UInt8]

        package init(sequence: UInt64, bytes: [UInt8]) {
            self.sequence = sequence
            self.bytes = bytes
        }
    }

    private let mailboxes = Mutex<[HTTPLoopMailbox]>([])
    private let openStreams = Atomic<Int>(0)
    /// What all streams together may hold of the backlogs they start with.
    package let backlog: HTTPStreamBacklog

    package init(backlog: HTTPStreamBacklog = HTTPStreamBacklog()) {
        self.backlog = backlog
    }

    /// The event loops to publish to (set by the server when it starts).
    func attach(_ loops: [HTTPLoopMailbox]) {
        mailboxes.withLock { $0 = loops }
    }

    /// Queues `message` for every stream on every loop.
    package func publish(_ message: Message) {
        for mailbox in mailboxes.withLock({ $0 }) { mailbox.publish(message) }
    }

    /// How many streams are open now.
    package var streamCount: Int { openStreams.load(ordering: .relaxed) }

    package func streamOpened() { openStreams.add(1, ordering: .relaxed) }

    package func streamClosed() { openStreams.subtract(1, ordering: .relaxed) }
}

/// How a streamed response starts: bytes to send after the head (a backlog), the sequence
/// they reach, and the hub whose later messages follow.
package struct HTTPStreamStart: Sendable {
    package let hub: HTTPStreamHub
    package let initial: [UInt8]
    package let sequence: UInt64
    /// What `initial` holds of the hub's backlog capacity, given back once the client took it.
    package var reservation: HTTPStreamBacklog.Reservation? = nil

    package init(hub: HTTPStreamHub, initial: [UInt8], sequence: UInt64, reservation: HTTPStreamBacklog.Reservation? = nil) {
        self.hub = hub
        self.initial = initial
        self.sequence = sequence
        self.reservation = reservation
    }
}
