import Glibc
import TripsPlatform

/// One event loop thread driven by io_uring completions (`--io uring`): the same work as
/// `EventLoop`, with the kernel doing the reads and writes it is handed, and one system call
/// per turn for all of them (`IOURing.submitAndWait`) where epoll makes one per read and one
/// per write (#32 goal 3).
///
/// Each connection has at most one receive and one send in flight. A receive is asked for
/// only while the connection takes bytes (`isReadable`), exactly as `EventLoop` reads only
/// then, so a client that sends without reading is held back the same way; it lands in a
/// buffer of the ring's shared group, given back as soon as the connection took the bytes.
/// A send hands the kernel a copy of the head of `pendingOutput` (the socket's bytes stay in
/// `pendingOutput` until the kernel says they were taken, so the connection's rules about
/// unsent output, its write timeout, back-pressure and stream backlog, hold unchanged).
/// Closing cancels what is in flight; the descriptor is closed, and its number free for a new
/// connection, only when the last of it completed, so a completion always finds its channel.
final class UringEventLoop<Connection: LoopConnection> {
    final class Channel: LoopChannel {
        let descriptor: Int32
        let connection: Connection
        var isReceiving = false
        var isSending = false
        /// The connection closed: its socket closes once nothing is in flight on it.
        var isRetired = false
        /// The peer sent its last byte: nothing more is asked for.
        var sawEndOfInput = false
        /// The connection follows a stream and is in `streams`.
        var isListedAsStream = false
        /// The bytes the send in flight hands the kernel, stable until it completes; empty
        /// (no memory) while nothing is in flight.
        var sendBuffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var isOpen: Bool { !isRetired }

        init(descriptor: Int32, connection: Connection) {
            self.descriptor = descriptor
            self.connection = connection
        }

        deinit { sendBuffer.deallocate() }  // only at the loop's end: a retired channel's goes back first
    }

    /// What a completion is for, in its tag's top byte; the low 32 bits hold the descriptor.
    enum Purpose: UInt64 {
        case accept = 1
        case mailbox, receive, send, cancel
    }

    static var receiveBuffers: Int { 256 }
    static var receiveBufferSize: Int { 16 * 1024 }
    /// The most one send hands the kernel; a larger answer goes in several.
    static var largestSend: Int { 256 * 1024 }
    /// The size of the send buffers the loop keeps between sends (larger ones are freed).
    static var keptSendBufferSize: Int { 4096 }
    /// How many such buffers it keeps.
    static var keptSendBuffers: Int { 256 }

    /// What the loop was started with: its place, mailbox, the shared spreader, quota and clock.
    let setup: EventLoopSetup<Connection>
    let ring: IOURing
    var listener: Listener?
    /// See `LoopDriver.reserveDescriptor`.
    var reserveDescriptor: Int32
    let environment: Connection.Environment
    var channels: [Channel?] = []
    var liveCount = 0
    /// Closed connections whose socket waits for its last completion.
    var retiring = 0
    var nextSerial: UInt64 = 0
    var output: [UInt8] = []
    /// Send buffers no send holds now: a connection has one only while its send is in flight,
    /// so 10,000 idle connections hold none.
    var spareSendBuffers: [UnsafeMutableRawBufferPointer] = []
    /// Connections whose receive found no free buffer: asked again after the turn gave some back.
    var starved: [Int32] = []
    var streams: Set<Int32> = []
    var now: MonotonicInstant
    var nextSweep: MonotonicInstant
    var acceptPausedUntil: MonotonicInstant?
    var isAccepting = false
    var shuttingDown = false

    init(_ setup: EventLoopSetup<Connection>, ring: IOURing) {
        self.setup = setup
        self.ring = ring
        listener = setup.listener
        reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        now = setup.clock.now()
        nextSweep = now + .seconds(1)
        environment = setup.makeEnvironment()
        output.reserveCapacity(loopReadBufferSize)
        setup.wakeWhenTheClockMoves()
    }

    deinit {
        if reserveDescriptor >= 0 { close(reserveDescriptor) }
        for buffer in spareSendBuffers { buffer.deallocate() }
    }

    static func tag(_ purpose: Purpose, _ descriptor: Int32) -> UInt64 {
        purpose.rawValue << 56 | UInt64(UInt32(bitPattern: descriptor))
    }

    /// Runs until shutdown has been requested and every connection has closed.
    func run() {
        do {
            try ring.enable()
        } catch {
            fatalError("io_uring: \(error)")  // the ring was made for this thread, and it alone enables it
        }
        ring.pollReadable(mailbox.eventDescriptor, tag: Self.tag(.mailbox, mailbox.eventDescriptor))
        startAccepting()
        while !(shuttingDown && liveCount == 0 && retiring == 0) {
            guard ring.submitAndWait(nanoseconds: starved.isEmpty ? nextSweep.nanoseconds(since: now) : 0) else { break }
            now = clock.now()
            environment.loopDidWake()
            ring.takeCompletions { completions in
                for completion in completions { handle(completion) }
            }
            if !starved.isEmpty {
                let turn = starved
                starved.removeAll(keepingCapacity: true)
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

    func handle(_ completion: IOURing.Completion) {
        let descriptor = Int32(truncatingIfNeeded: completion.tag & 0xffff_ffff)
        switch Purpose(rawValue: completion.tag >> 56) {
        case .accept: accepted(completion)
        case .mailbox:
            if !completion.hasMore { ring.pollReadable(descriptor, tag: completion.tag) }
            readMailbox()
        case .receive:
            guard let channel = channels[Int(descriptor)] else { return }
            received(completion, on: channel)
        case .send:
            guard let channel = channels[Int(descriptor)] else { return }
            sent(completion, on: channel)
        case .cancel, nil: return
        }
    }

    // MARK: - Accepting

    func startAccepting() {
        guard let listening = listener?.descriptor, !isAccepting, acceptPausedUntil == nil else { return }
        ring.accept(on: listening, tag: Self.tag(.accept, listening))
        isAccepting = true
    }

    func accepted(_ completion: IOURing.Completion) {
        if !completion.hasMore { isAccepting = false }
        let result = completion.result
        if result >= 0 {
            let descriptor = result
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
            }
            if shuttingDown {
                close(descriptor)
            } else {
                admit(descriptor, peer: named == 0 ? IPAddress(address) : nil)
            }
        } else {
            switch -result {
            case ECANCELED, ECONNABORTED, EPROTO, EPERM, EINTR, EAGAIN:
                break
            case EMFILE where reserveDescriptor >= 0, ENFILE where reserveDescriptor >= 0:
                dropOneConnection()
            default:
                pauseAccepting()  // out of memory or descriptors: retry in 100 ms, don't spin
            }
        }
        if !isAccepting { startAccepting() }
    }

    func pauseAccepting() {
        guard acceptPausedUntil == nil else { return }
        if isAccepting, let listening = listener?.descriptor {
            ring.cancelAll(on: listening, tag: Self.tag(.cancel, listening))
        }
        acceptPausedUntil = now + .milliseconds(100)
        nextSweep = min(nextSweep, now + .milliseconds(100))
    }

    func resumeAccepting() {
        acceptPausedUntil = nil
        startAccepting()
    }

    func stopListening() {
        if isAccepting, let listening = listener?.descriptor {
            ring.cancelAll(on: listening, tag: Self.tag(.cancel, listening))
        }
        listener = nil
    }

    func adopt(_ descriptor: Int32, peer: IPAddress?) {
        do {
            try Socket.setOption(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        } catch {
            drop(descriptor)  // the peer sees a reset; the loop goes on
            return
        }
        let channel = register(descriptor, peer: peer) { Channel(descriptor: descriptor, connection: $0) }
        liveCount += 1
        readAvailable(channel)
    }

    func drop(_ descriptor: Int32) {
        close(descriptor)
        quota.release()
    }

    // MARK: - Connections

    /// Answers what the connection held back, if it can now, then asks for its next bytes if
    /// it takes them.
    func readAvailable(_ channel: Channel) {
        let connection = channel.connection
        while connection.canResume && !channel.isRetired {
            resetOutput()
            connection.resume(now: now, output: &output)
            guard flush(channel) else { return }
        }
        guard !channel.isRetired, !channel.isReceiving, !channel.sawEndOfInput, connection.isReadable else { return }
        ring.receive(from: channel.descriptor, tag: Self.tag(.receive, channel.descriptor))
        channel.isReceiving = true
    }

    func received(_ completion: IOURing.Completion, on channel: Channel) {
        channel.isReceiving = false
        let result = Int(completion.result)
        defer { if let id = completion.bufferID { ring.recycle(id) } }
        guard !channel.isRetired else {
            finishClosingIfIdle(channel)
            return
        }
        let connection = channel.connection
        if result > 0, let id = completion.bufferID {
            resetOutput()
            connection.receive(ring.buffer(id, count: result), now: now, output: &output)
            if flush(channel) { readAvailable(channel) }
        } else if result == 0 {
            channel.sawEndOfInput = true
            connection.peerDidClose()
            resetOutput()
            _ = flush(channel)
        } else if result == -ENOBUFS {
            starved.append(channel.descriptor)  // every buffer was taken this turn: they are back after it
        } else {
            closeChannel(channel)  // ECONNRESET and friends: the peer is gone
        }
    }

    /// Hands `output` to the kernel after anything already pending, and acts on the
    /// connection's state. Returns false if the connection was closed.
    func flush(_ channel: Channel) -> Bool {
        let connection = channel.connection
        // See `EventLoop.flush`: only a backlog left from earlier messages cuts a stream.
        if channel.isListedAsStream && connection.pendingOutput.count > maxStreamBacklog {
            closeChannel(channel)
            return false
        }
        if connection.isStreaming && !channel.isListedAsStream {
            channel.isListedAsStream = true
            streams.insert(channel.descriptor)
        }
        if !output.isEmpty {
            connection.pendingOutput.append(contentsOf: output)
            startSending(channel)
        }
        return settle(channel)
    }

    /// Hands the kernel the head of the pending output, unless a send is in flight.
    func startSending(_ channel: Channel) {
        let pending = channel.connection.pendingOutput
        guard !channel.isSending, !channel.isRetired, !pending.isEmpty else { return }
        let count = min(pending.count, Self.largestSend)
        if channel.sendBuffer.count < count {
            releaseSendBuffer(of: channel)
            channel.sendBuffer =
                count <= Self.keptSendBufferSize
                ? spareSendBuffers.popLast() ?? .allocate(byteCount: Self.keptSendBufferSize, alignment: 16)
                : .allocate(byteCount: count, alignment: 16)
        }
        pending.withUnsafeBytes { channel.sendBuffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        ring.send(
            UnsafeRawBufferPointer(rebasing: channel.sendBuffer[..<count]), to: channel.descriptor, tag: Self.tag(.send, channel.descriptor)
        )
        channel.isSending = true
    }

    func sent(_ completion: IOURing.Completion, on channel: Channel) {
        channel.isSending = false
        guard !channel.isRetired else {
            finishClosingIfIdle(channel)
            return
        }
        let count = Int(completion.result)
        guard count > 0 else {
            closeChannel(channel)  // EPIPE, ECONNRESET: the peer is gone
            return
        }
        let connection = channel.connection
        if count == connection.pendingOutput.count {
            if connection.pendingOutput.capacity > loopKeptOutputCapacity {
                connection.pendingOutput = []  // a large backlog gives its memory back
            } else {
                connection.pendingOutput.removeAll(keepingCapacity: true)
            }
        } else {
            connection.pendingOutput.removeFirst(count)
        }
        connection.noteWriteProgress(now: now)
        startSending(channel)
        if !channel.isSending { releaseSendBuffer(of: channel) }
        if settle(channel) { readAvailable(channel) }
    }

    /// Takes back the channel's send buffer, once no send holds it: kept for the next
    /// connection's if it is of the kept size, freed otherwise.
    func releaseSendBuffer(of channel: Channel) {
        let buffer = channel.sendBuffer
        guard buffer.baseAddress != nil else { return }
        channel.sendBuffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        if buffer.count == Self.keptSendBufferSize && spareSendBuffers.count < Self.keptSendBuffers {
            spareSendBuffers.append(buffer)
        } else {
            buffer.deallocate()
        }
    }

    /// Ends the connection now; its socket closes once nothing is in flight on it (pending
    /// output included: `settle` half-closes only once the kernel took it all).
    func closeChannel(_ channel: Channel) {
        guard !channel.isRetired else { return }
        channel.isRetired = true
        if channel.isListedAsStream { streams.remove(channel.descriptor) }
        channel.connection.didClose()  // before the close, so a client never sees it ahead of the count
        liveCount -= 1
        quota.release()
        retiring += 1
        if channel.isReceiving || channel.isSending {
            ring.cancelAll(on: channel.descriptor, tag: Self.tag(.cancel, channel.descriptor))
        } else {
            finishClosingIfIdle(channel)
        }
    }

    func finishClosingIfIdle(_ channel: Channel) {
        guard channel.isRetired, !channel.isReceiving, !channel.isSending else { return }
        releaseSendBuffer(of: channel)
        close(channel.descriptor)
        channels[Int(channel.descriptor)] = nil
        retiring -= 1
    }
}

extension UringEventLoop: LoopDriver {}

@available(*, unavailable)
extension UringEventLoop: Sendable {}
