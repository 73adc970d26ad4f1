import Glibc
import TripsPlatform

/// What an event loop does between its system calls, whichever way it asks the kernel for
/// I/O (readiness, `EventLoop` with epoll; completions, `UringEventLoop` with io_uring): mail
/// from other threads, stream messages, the deadline sweep and the graceful shutdown. Each
/// loop says how it writes, reads on and stops listening; this holds the order those happen in.
protocol LoopDriver: AnyObject {
    associatedtype Connection: LoopConnection
    associatedtype Channel: LoopChannel<Connection>

    /// What the loop was started with (`index`, `mailbox`, `spreader`, `quota`, `clock` below).
    var setup: EventLoopSetup<Connection> { get }
    var listener: Listener? { get }
    /// Kept open so that, out of descriptors, one can be freed to accept and drop a connection
    /// instead of leaving it in the backlog, where it would wake the loop forever.
    var reserveDescriptor: Int32 { get set }
    var environment: Connection.Environment { get }
    var now: MonotonicInstant { get }
    var nextSweep: MonotonicInstant { get set }
    var acceptPausedUntil: MonotonicInstant? { get set }
    var shuttingDown: Bool { get set }
    var liveCount: Int { get }
    /// Connections that follow a stream, which every published message is written to.
    var streams: Set<Int32> { get }
    /// Every open connection's channel, at its descriptor.
    var channels: [Channel?] { get set }
    var nextSerial: UInt64 { get set }
    /// The loop's shared output buffer, which a connection's answers are appended to.
    var output: [UInt8] { get set }

    /// Serves the accepted socket `descriptor`, whose peer is `peer` (nil: not an IP peer).
    func adopt(_ descriptor: Int32, peer: IPAddress?)
    /// Closes an admitted connection that never became a channel, and gives back its place.
    func drop(_ descriptor: Int32)
    /// Ends the connection: its socket closes (once nothing is in flight on it).
    func closeChannel(_ channel: Channel)
    /// Accepts no more for a while (out of descriptors or memory): `sweep` resumes.
    func pauseAccepting()
    /// Writes `output` for `channel` and acts on its connection's state. Returns false if the
    /// connection was closed.
    func flush(_ channel: Channel) -> Bool
    /// Reads on, if the connection takes bytes; first answers what it held back, if it can.
    func readAvailable(_ channel: Channel)
    /// Accepts again after a pause (out of descriptors or memory).
    func resumeAccepting()
    /// Stops accepting for good: the server shuts down.
    func stopListening()
}

/// A connection as a loop keeps it, with its socket's state.
protocol LoopChannel<Connection>: AnyObject {
    associatedtype Connection: LoopConnection
    var descriptor: Int32 { get }
    var connection: Connection { get }
    /// Whether the connection is still open (a closed one may wait for its socket's last I/O).
    var isOpen: Bool { get }
}

extension LoopDriver {
    /// The loop's place among the server's loops.
    var index: Int { setup.index }
    var mailbox: LoopMailbox<Connection> { setup.mailbox }
    var spreader: ConnectionSpreader<Connection> { setup.spreader }
    var quota: ConnectionQuota { setup.quota }
    var clock: any ServerClock { setup.clock }
    /// A stream whose client leaves more than this many bytes unread is cut.
    var maxStreamBacklog: Int { setup.maxStreamBacklog }

    /// The open connection at `descriptor`, if any.
    func channel(_ descriptor: Int32) -> Channel? {
        let index = Int(descriptor)
        guard index >= 0 && index < channels.count, let channel = channels[index], channel.isOpen else { return nil }
        return channel
    }

    func milliseconds(until deadline: MonotonicInstant) -> Int32 {
        let nanoseconds = deadline.nanoseconds(since: now)
        return Int32(clamping: (nanoseconds + 999_999) / 1_000_000)
    }

    /// Takes a connection another loop's listener or this one's accepted: closed at once past
    /// the server's connection limit (the peer sees its connection end), otherwise served by
    /// the next loop in turn.
    func admit(_ descriptor: Int32, peer: IPAddress?) {
        guard quota.admit() else {
            close(descriptor)
            environment.connectionRefused()
            return
        }
        let target = spreader.nextLoop()
        if target == index {
            adopt(descriptor, peer: peer)
        } else if !spreader.give(descriptor, peer: peer, to: target) {
            drop(descriptor)  // that loop has stopped
        }
    }

    /// Out of descriptors: frees the reserve, accepts and drops one connection, and takes the
    /// reserve back (or pauses accepting, if it cannot).
    func dropOneConnection() {
        close(reserveDescriptor)
        if let listening = listener?.descriptor {
            let dropped = Linux.calls.accept4(listening, nil, nil, Linux.closeOnExec)
            if dropped >= 0 { close(dropped) }
        }
        reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if reserveDescriptor < 0 { pauseAccepting() }
    }

    /// Makes the connection of an adopted socket and keeps its channel at its descriptor.
    func register(_ descriptor: Int32, peer: IPAddress?, makeChannel: (Connection) -> Channel) -> Channel {
        let slot = Int(descriptor)
        if slot >= channels.count {
            channels.append(contentsOf: repeatElement(nil, count: max(slot + 1, channels.count * 2) - channels.count))
        }
        nextSerial += 1
        let connection = Connection(
            id: ConnectionID(descriptor: descriptor, serial: nextSerial), peer: peer, environment: environment, now: now)
        let channel = makeChannel(connection)
        channels[slot] = channel
        return channel
    }

    /// Closes or half-closes as the connection's state asks, once its output is all sent.
    /// Returns false if it was closed.
    func settle(_ channel: Channel) -> Bool {
        let connection = channel.connection
        switch connection.lifecycle {
        case .closed:
            closeChannel(channel)
            return false
        case .closing where connection.pendingOutput.isEmpty:
            shutdown(channel.descriptor, Int32(SHUT_WR))
            connection.beginLingering(now: now)
            if connection.lifecycle == .closed {
                closeChannel(channel)
                return false
            }
            return true
        default:
            return true
        }
    }

    /// Empties the shared output buffer for the next connection's answers; after a large
    /// answer, frees it instead, so that one large answer does not hold its size for good.
    func resetOutput() {
        if output.capacity > loopKeptOutputCapacity {
            output = []
            output.reserveCapacity(loopReadBufferSize)
        } else {
            output.removeAll(keepingCapacity: true)
        }
    }

    /// Handles the mail, then what was posted while it did (which woke nothing), up to
    /// `mailRounds` rounds before the loop's other descriptors get their turn.
    func readMailbox() {
        var mail = mailbox.take()
        for round in 1...Self.mailRounds {
            handle(mail)
            guard let more = mailbox.takeMore(orWake: round == Self.mailRounds) else { return }
            mail = more
        }
    }

    /// Rounds of mail a loop takes in a row (`readMailbox`).
    static var mailRounds: Int { 8 }

    /// Handles the mail in an order that holds whatever order it was posted in: streams hear
    /// their messages before a shutdown ends them, and a shutdown takes hold before deferred
    /// replies are written, so that a reply that arrives with it (or after) is the last on its
    /// connection (an HTTP answer says `Connection: close`), which closes once it is sent.
    private func handle(_ mail: LoopMailbox<Connection>.Mail) {
        if !mail.streamMessages.isEmpty { publish(mail.streamMessages) }
        if mail.shutdownRequested { beginShutdown() }
        for (descriptor, peer) in mail.adoptions {
            if shuttingDown { drop(descriptor) } else { adopt(descriptor, peer: peer) }
        }
        for (id, reply) in mail.deliveries {
            guard let channel = channel(id.descriptor), channel.connection.id == id else { continue }
            resetOutput()
            channel.connection.complete(reply, now: now, output: &output)
            if flush(channel) { readAvailable(channel) }
        }
        if !mail.reportRequests.isEmpty {
            let report = environment.report(openConnections: liveCount)
            for reply in mail.reportRequests { reply(report) }
        }
        if mail.clockAdvanced { nextSweep = now }
    }

    /// Writes published messages to every stream on this loop, each message once per stream.
    func publish(_ messages: [Connection.StreamMessage]) {
        for descriptor in streams {
            guard let channel = channel(descriptor) else { continue }
            resetOutput()
            for message in messages { channel.connection.deliver(message, now: now, output: &output) }
            _ = flush(channel)
        }
    }

    /// Acts on every passed deadline, and sets when to look next: at most a second on.
    func sweep() {
        var earliest = now + .seconds(1)
        if let pausedUntil = acceptPausedUntil {
            if pausedUntil <= now { resumeAccepting() } else { earliest = min(earliest, pausedUntil) }
        }
        for case let channel? in channels where channel.isOpen {
            guard var deadline = channel.connection.deadline() else { continue }
            if deadline <= now {
                resetOutput()
                channel.connection.expire(now: now, output: &output)
                guard flush(channel), let next = channel.connection.deadline() else { continue }
                deadline = next
            }
            earliest = min(earliest, deadline)
        }
        nextSweep = earliest
    }

    /// Stops accepting, and ends each connection as it can (see `LoopConnection.beginShutdown`).
    func beginShutdown() {
        guard !shuttingDown else { return }
        shuttingDown = true
        environment.shutdownDidBegin()
        stopListening()
        acceptPausedUntil = nil
        for case let channel? in channels where channel.isOpen {
            resetOutput()
            channel.connection.beginShutdown(output: &output)
            _ = flush(channel)
        }
    }
}

/// The bytes one read takes at most, and what the shared output buffer starts with.
let loopReadBufferSize = 64 * 1024
/// The most capacity the shared output buffer keeps between answers; past it, it is freed.
let loopKeptOutputCapacity = 4 * loopReadBufferSize
