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
    /// The `Following` claims held: streams open, and streams on their way to opening.
    private let followers = Atomic<Int>(0)
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

    /// A stream's claim on the messages published from now on: taken before the stream reads
    /// the sequence it starts after, and held (by `HTTPStreamStart`, then by the connection)
    /// until it ends or never starts.
    package func follow() -> Following { Following(hub: self) }

    /// Whether any stream holds a claim. While none does, no stream could want a message
    /// published now, and a publisher may skip making it (and waking every loop to drop it):
    /// a stream that starts later starts after it.
    package var isFollowed: Bool { followers.load(ordering: .relaxed) > 0 }

    /// Counts itself among the hub's followers for as long as it lives.
    package final class Following: Sendable {
        package let hub: HTTPStreamHub

        fileprivate init(hub: HTTPStreamHub) {
            self.hub = hub
            hub.followers.add(1, ordering: .relaxed)
        }

        deinit { hub.followers.subtract(1, ordering: .relaxed) }
    }

    /// How many streams are open now.
    package var streamCount: Int { openStreams.load(ordering: .relaxed) }

    package func streamOpened() { openStreams.add(1, ordering: .relaxed) }

    package func streamClosed() { openStreams.subtract(1, ordering: .relaxed) }
}

/// How a streamed response starts: bytes to send after the head (a backlog), the sequence
/// they reach, and the hub whose later messages follow.
package struct HTTPStreamStart: Sendable {
    /// The stream's claim on its hub, taken before `sequence` was read.
    package let following: HTTPStreamHub.Following
    package var hub: HTTPStreamHub { following.hub }
    package let initial: [UInt8]
    package let sequence: UInt64
    /// What `initial` holds of the hub's backlog capacity, given back once the client took it.
    package var reservation: HTTPStreamBacklog.Reservation? = nil

    package init(
        following: HTTPStreamHub.Following, initial: [UInt8], sequence: UInt64, reservation: HTTPStreamBacklog.Reservation? = nil
    ) {
        self.following = following
        self.initial = initial
        self.sequence = sequence
        self.reservation = reservation
    }
}
