import Glibc
import TripsPlatform

/// What a loop thread is handed at start: descriptors it will own, and the shared parts.
struct EventLoopSetup<Connection: LoopConnection>: Sendable {
    var index: Int
    var listener: Listener
    /// The loop's epoll set, already watching the listener and the mailbox.
    var epoll: Int32
    var mailbox: LoopMailbox<Connection>
    var spreader: ConnectionSpreader<Connection>
    var quota: ConnectionQuota
    var clock: any ServerClock
    /// A stream whose client leaves more than this many bytes unread is cut.
    var maxStreamBacklog: Int
    /// Makes what the loop's connections share; called once, on the loop's thread.
    var makeEnvironment: @Sendable () -> Connection.Environment

    /// Creates the loop's epoll set, watching `listener` and `mailbox`; throws (and leaves
    /// nothing open) if that fails.
    init(
        index: Int, listener: Listener, mailbox: LoopMailbox<Connection>, spreader: ConnectionSpreader<Connection>,
        quota: ConnectionQuota, clock: any ServerClock, maxStreamBacklog: Int,
        makeEnvironment: @escaping @Sendable () -> Connection.Environment
    ) throws(SystemError) {
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
        self.index = index
        self.listener = listener
        self.epoll = epoll
        self.mailbox = mailbox
        self.spreader = spreader
        self.quota = quota
        self.clock = clock
        self.maxStreamBacklog = maxStreamBacklog
        self.makeEnvironment = makeEnvironment
    }
}
