import Glibc
import TripsPlatform

/// One event loop thread: an epoll set watching the shared listener, its connections, and
/// a mailbox for deferred replies and shutdown. No call on it blocks except `epoll_wait`.
///
/// It moves bytes between sockets and `Connection`s and knows nothing of the protocol they
/// speak: HTTP lives in `HTTPConnection` and `ConnectionEnvironment`.
///
/// Connection sockets are edge-triggered for EPOLLIN | EPOLLOUT | EPOLLRDHUP, registered once.
/// All connections of a loop share one 64 KiB read buffer and one output buffer, so an idle
/// connection costs two small objects and its socket; only an incomplete request keeps bytes of
/// its own; the output buffer is freed after a large answer rather than kept at its largest.
/// Deadlines are checked by a sweep at most a second apart (sooner when one is due, and at once
/// when the manual clock moves).
final class EventLoop<Connection: LoopConnection> {
    /// A connection's socket and its protocol state.
    final class Channel: LoopChannel {
        let descriptor: Int32
        var socket: FileDescriptor?
        let connection: Connection
        /// EPOLLRDHUP was seen: read to EOF instead of stopping at a short read.
        var peerHalfClosed = false
        /// A short read emptied the socket and no EPOLLIN has come since: reading again would
        /// only be refused (`EAGAIN`). Kept across turns, so that an answer completed later
        /// (`LoopDriver.handle`) does not try a read its client has given nothing for: a
        /// system call a write would otherwise make for nothing.
        var socketIsEmpty = false
        /// The connection follows a stream and is in `streams`.
        var isListedAsStream = false
        var isOpen: Bool { socket != nil }

        init(descriptor: Int32, connection: Connection) {
            self.descriptor = descriptor
            socket = FileDescriptor(descriptor)
            self.connection = connection
        }
    }

    // Constants are computed: a generic type has no static stored properties.
    /// epoll data tags for the listener and the mailbox; connections are tagged with their descriptor.
    static var listenerTag: UInt64 { .max }
    static var mailboxTag: UInt64 { .max - 1 }
    static var maxEvents: Int32 { 256 }
    /// Reads per connection per wake before others get a turn.
    static var readRoundsPerTurn: Int { 4 }

    /// What the loop was started with: its place, mailbox, the shared spreader, quota and clock.
    let setup: EventLoopSetup<Connection>
    let epoll: FileDescriptor
    /// The server's listening socket while this loop accepts; nil once it stopped accepting.
    var listener: Listener?
    /// See `LoopDriver.reserveDescriptor`.
    var reserveDescriptor: Int32
    let environment: Connection.Environment
    var channels: [Channel?] = []
    var liveCount = 0
    var nextSerial: UInt64 = 0
    let readBuffer: UnsafeMutableRawBufferPointer
    let eventBuffer: UnsafeMutableRawBufferPointer
    var output: [UInt8] = []
    /// Connections that still had bytes to read when their turn ended.
    var again: [Int32] = []
    /// Connections that follow a stream, which every published message is written to.
    var streams: Set<Int32> = []
    var now: MonotonicInstant
    var nextSweep: MonotonicInstant
    var acceptPausedUntil: MonotonicInstant?
    var shuttingDown = false

    init(_ setup: EventLoopSetup<Connection>, epoll: Int32) {
        self.setup = setup
        self.epoll = FileDescriptor(epoll)
        listener = setup.listener
        reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        now = setup.clock.now()
        nextSweep = now + .seconds(1)
        environment = setup.makeEnvironment()
        readBuffer = .allocate(byteCount: loopReadBufferSize, alignment: 16)
        eventBuffer = .allocate(byteCount: Int(Self.maxEvents) * Linux.epollEventStride, alignment: 16)
        output.reserveCapacity(loopReadBufferSize)
        setup.wakeWhenTheClockMoves()
    }

    deinit {
        readBuffer.deallocate()
        eventBuffer.deallocate()
        if reserveDescriptor >= 0 { close(reserveDescriptor) }
    }

    /// Runs until shutdown has been requested and every connection has closed.
    func run() {
        while !(shuttingDown && liveCount == 0) {
            let timeout: Int32 = again.isEmpty ? milliseconds(until: nextSweep) : 0
            let count = Linux.calls.epollWait(epoll.rawValue, eventBuffer.baseAddress, Self.maxEvents, timeout)
            now = clock.now()
            environment.loopDidWake()
            if count < 0 {
                if errno == EINTR { continue }
                break  // EBADF/EINVAL: the set is gone; nothing sensible remains to do
            }
            for slot in 0..<Int(count) {
                let offset = slot * Linux.epollEventStride
                let events = eventBuffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                let data = eventBuffer.loadUnaligned(fromByteOffset: offset + Linux.epollDataOffset, as: UInt64.self)
                switch data {
                case Self.listenerTag: acceptConnections()
                case Self.mailboxTag: readMailbox()
                default: service(descriptor: Int32(truncatingIfNeeded: data), events: events)
                }
            }
            if !again.isEmpty {
                let turn = again
                again.removeAll(keepingCapacity: true)
                for descriptor in turn {
                    if let channel = channel(descriptor) { readAvailable(channel) }
                }
            }
            if now >= nextSweep { sweep() }
            environment.loopTurnDidEnd()
        }
        mailbox.close()
        listener = nil
    }

    // MARK: - Accepting

    func acceptConnections() {
        guard let listening = listener?.descriptor else { return }
        for _ in 0..<64 {  // the listener is level-triggered: what is left wakes us again
            do {
                // The peer's address comes with the connection, at no extra system call.
                var address = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let accepted = try withUnsafeMutablePointer(to: &address) { pointer throws(SystemError) in
                    try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw throws(SystemError) in
                        try systemCall("accept4") { Linux.calls.accept4(listening, raw, &length, Linux.nonBlocking | Linux.closeOnExec) }
                    }
                }
                switch accepted {
                case .done(let descriptor): admit(descriptor, peer: IPAddress(address))
                case .wouldBlock: return
                }
            } catch {
                switch error.errno {
                case ECONNABORTED, EPROTO, EPERM:
                    continue
                case EMFILE where reserveDescriptor >= 0, ENFILE where reserveDescriptor >= 0:
                    dropOneConnection()
                    return
                default:
                    pauseAccepting()  // out of memory or descriptors: retry in 100 ms, don't spin
                    return
                }
            }
        }
    }

    func pauseAccepting() {
        guard let listening = listener?.descriptor, acceptPausedUntil == nil else { return }
        Linux.epollRemove(epoll.rawValue, listening)
        acceptPausedUntil = now + .milliseconds(100)
        nextSweep = min(nextSweep, now + .milliseconds(100))
    }

    func resumeAccepting() {
        acceptPausedUntil = nil
        guard let listening = listener?.descriptor else { return }
        do {
            try Linux.epollAdd(
                epoll.rawValue, listening, events: Linux.epollIn | Linux.epollExclusive, data: Self.listenerTag)
        } catch {
            acceptPausedUntil = now + .milliseconds(100)
        }
    }

    func stopListening() {
        if let listening = listener?.descriptor { Linux.epollRemove(epoll.rawValue, listening) }
        listener = nil
    }

    func adopt(_ descriptor: Int32, peer: IPAddress?) {
        do {
            try Socket.setOption(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            try Linux.epollAdd(
                epoll.rawValue, descriptor,
                events: Linux.epollIn | Linux.epollOut | Linux.epollRdHup | Linux.epollEdgeTriggered,
                data: UInt64(descriptor))
        } catch {
            drop(descriptor)  // the peer sees a reset; the loop goes on
            return
        }
        _ = register(descriptor, peer: peer) { Channel(descriptor: descriptor, connection: $0) }
        liveCount += 1
    }

    func drop(_ descriptor: Int32) {
        close(descriptor)
        quota.release()
    }

    // MARK: - Connections

    func service(descriptor: Int32, events: UInt32) {
        guard let channel = channel(descriptor) else { return }
        if events & (Linux.epollErr | Linux.epollHup) != 0 {
            closeChannel(channel)
            return
        }
        if events & Linux.epollRdHup != 0 { channel.peerHalfClosed = true }
        if events & (Linux.epollIn | Linux.epollRdHup) != 0 { channel.socketIsEmpty = false }
        var wrote = false
        if events & Linux.epollOut != 0 && !channel.connection.pendingOutput.isEmpty {
            guard writePending(channel), settle(channel) else { return }
            wrote = true
        }
        if events & (Linux.epollIn | Linux.epollRdHup) != 0 || wrote {
            readAvailable(channel)
        }
    }

    /// Reads while the connection takes bytes, answering as it goes; first, answers the
    /// requests it held back while its client did not read, once the client has.
    func readAvailable(_ channel: Channel) {
        let connection = channel.connection
        var rounds = 0
        while true {
            if connection.canResume {
                resetOutput()
                connection.resume(now: now, output: &output)
                guard flush(channel) else { return }
                continue
            }
            guard connection.isReadable, !channel.socketIsEmpty else { return }
            let result: IOResult<Int>
            do {
                result = try systemCall("recv") {
                    recv(channel.descriptor, readBuffer.baseAddress, readBuffer.count, 0)
                }
            } catch {
                closeChannel(channel)  // ECONNRESET and friends: the peer is gone
                return
            }
            switch result {
            case .wouldBlock:
                channel.socketIsEmpty = true
                environment.readFoundNothing()
                return
            case .done(0):
                connection.peerDidClose()
                resetOutput()
                _ = flush(channel)
                return
            case .done(let count):
                resetOutput()
                connection.receive(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), now: now, output: &output)
                guard flush(channel) else { return }
                // Edge-triggered: a short read emptied the socket; new bytes bring a new edge.
                // (Requests it held back may still be answered first, if the socket took enough.)
                channel.socketIsEmpty = count < readBuffer.count && !channel.peerHalfClosed
                if channel.socketIsEmpty { continue }
                rounds += 1
                if rounds == Self.readRoundsPerTurn {
                    again.append(channel.descriptor)
                    return
                }
            }
        }
    }

    /// Writes `output` (after anything already pending) and acts on the connection's state.
    func flush(_ channel: Channel) -> Bool {
        let connection = channel.connection
        // A stream whose client left more than the limit unread from earlier messages is cut
        // (it resumes with Last-Event-ID); what is written now does not count, so a large
        // backlog or event alone never cuts a client that reads.
        if channel.isListedAsStream && connection.pendingOutput.count > maxStreamBacklog {
            closeChannel(channel)
            return false
        }
        if connection.isStreaming && !channel.isListedAsStream {
            channel.isListedAsStream = true
            streams.insert(channel.descriptor)
        }
        if !output.isEmpty {
            if connection.pendingOutput.isEmpty {
                let sent: Int
                do {
                    sent = try output.withUnsafeBytes { bytes throws(SystemError) in try send(channel, bytes) }
                } catch {
                    closeChannel(channel)
                    return false
                }
                if sent > 0 { connection.noteWriteProgress(now: now) }
                if sent < output.count { connection.pendingOutput.append(contentsOf: output[sent...]) }
            } else {
                connection.pendingOutput.append(contentsOf: output)
                guard writePending(channel) else { return false }
            }
        }
        return settle(channel)
    }

    /// Writes as much pending output as the socket takes. Returns false if the connection was closed.
    func writePending(_ channel: Channel) -> Bool {
        let connection = channel.connection
        while !connection.pendingOutput.isEmpty {
            let sent: Int
            do {
                sent = try connection.pendingOutput.withUnsafeBytes { bytes throws(SystemError) in try send(channel, bytes) }
            } catch {
                closeChannel(channel)
                return false
            }
            if sent == 0 { return true }
            if sent == connection.pendingOutput.count {
                connection.pendingOutput = []  // not emptied in place: a large backlog gives its memory back
            } else {
                connection.pendingOutput.removeFirst(sent)
            }
            connection.noteWriteProgress(now: now)
        }
        return true
    }

    func send(_ channel: Channel, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        switch try systemCall("send", { Glibc.send(channel.descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }) {
        case .done(let sent): sent
        case .wouldBlock: 0
        }
    }

    func closeChannel(_ channel: Channel) {
        guard channel.socket != nil else { return }
        if channel.isListedAsStream { streams.remove(channel.descriptor) }
        channel.connection.didClose()  // before the close, so a client never sees it ahead of the count
        channel.socket = nil  // closing removes it from the epoll set
        channels[Int(channel.descriptor)] = nil
        liveCount -= 1
        quota.release()
    }
}

extension EventLoop: LoopDriver {}

@available(*, unavailable)
extension EventLoop: Sendable {}
