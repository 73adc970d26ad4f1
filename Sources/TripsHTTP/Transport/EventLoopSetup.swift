import Glibc
import TripsPlatform

/// What a loop thread is handed at start: descriptors it will own, and the shared parts.
struct EventLoopSetup<Connection: LoopConnection>: Sendable {
    /// How the loop asks the kernel for I/O, made before its thread starts.
    enum Poller: Sendable {
        /// An epoll set, already watching the listener and the mailbox.
        case epoll(Int32)
        case uring(IOURing)
    }

    var index: Int
    var listener: Listener
    var poller: Poller
    var mailbox: LoopMailbox<Connection>
    var spreader: ConnectionSpreader<Connection>
    var quota: ConnectionQuota
    var clock: any ServerClock
    /// A stream whose client leaves more than this many bytes unread is cut.
    var maxStreamBacklog: Int
    /// Makes what the loop's connections share; called once, on the loop's thread.
    var makeEnvironment: @Sendable () -> Connection.Environment

    /// Creates the loop's epoll set, watching `listener` and `mailbox`, or its io_uring; throws
    /// (and leaves nothing open) if that fails: for a ring, the refusing call's error (`IOURing.init`).
    init(
        index: Int, engine: IOEngine = .epoll, uringEntries: Int = 1024, listener: Listener, mailbox: LoopMailbox<Connection>,
        spreader: ConnectionSpreader<Connection>, quota: ConnectionQuota, clock: any ServerClock, maxStreamBacklog: Int,
        makeEnvironment: @escaping @Sendable () -> Connection.Environment
    ) throws(SystemError) {
        switch engine {
        case .epoll:
            let epoll = try blockingSystemCall("epoll_create1") { Linux.calls.epollCreate1(Linux.closeOnExec) }
            do throws(SystemError) {
                try Linux.epollAdd(
                    epoll, listener.descriptor, events: Linux.epollIn | Linux.epollExclusive,
                    data: EventLoop<Connection>.listenerTag)
                try Linux.epollAdd(
                    epoll, mailbox.eventDescriptor, events: Linux.epollIn, data: EventLoop<Connection>.mailboxTag)
            } catch {
                close(epoll)
                throw error
            }
            poller = .epoll(epoll)
        case .uring:
            poller = .uring(
                try IOURing(
                    entries: uringEntries, bufferCount: UringEventLoop<Connection>.receiveBuffers,
                    bufferSize: UringEventLoop<Connection>.receiveBufferSize))
        }
        self.index = index
        self.listener = listener
        self.mailbox = mailbox
        self.spreader = spreader
        self.quota = quota
        self.clock = clock
        self.maxStreamBacklog = maxStreamBacklog
        self.makeEnvironment = makeEnvironment
    }
}

extension EventLoopSetup {
    var engine: IOEngine {
        switch poller {
        case .epoll: .epoll
        case .uring: .uring
        }
    }

    /// Runs the loop on the calling thread until it stops.
    func run() {
        switch poller {
        case .epoll(let epoll): EventLoop(self, epoll: epoll).run()
        case .uring(let ring): UringEventLoop(self, ring: ring).run()
        }
    }

    /// Has a manual clock's moves wake the loop, which then looks at its deadlines at once.
    func wakeWhenTheClockMoves() {
        let mailbox = mailbox
        clock.onAdvance { mailbox.clockAdvanced() }
    }

    /// Closes what the setup opened, for a loop that will not run.
    func discard() {
        if case .epoll(let epoll) = poller { close(epoll) }  // a ring closes when its last reference goes
    }
}
