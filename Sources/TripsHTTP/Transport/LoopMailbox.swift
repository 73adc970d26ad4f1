import Glibc
import Synchronization
import TripsPlatform

/// How other threads reach an event loop: a locked queue and an eventfd that wakes the loop.
///
/// The eventfd is written only when the queue goes from quiet to signalled, so a burst of
/// deferred replies costs one wake-up; and outside the lock, so that the loop taking its mail
/// never waits (spinning, then sleeping) for another thread's system call. The descriptor stays
/// open as long as the mailbox does, so that write never reaches a number reused since.
///
/// The queue stays signalled while the loop handles its mail, and the loop asks for what came
/// meanwhile (`takeMore`) before it waits again: a writer completing a batch posts each answer
/// while the loop is still writing the first ones out, and those posts wake nothing. (Quiet
/// from the first `take`, each answer of a batch cost a write, a read and a wait of the
/// eventfd, one wake-up of the loop per answer.)
final class LoopMailbox<Connection: LoopConnection>: Sendable {
    struct Mail {
        var deliveries: [(ConnectionID, Connection.Reply)] = []
        /// Messages for the loop's streams, in publication order.
        var streamMessages: [Connection.StreamMessage] = []
        /// Connections another loop accepted for this one.
        var adoptions: [(descriptor: Int32, peer: IPAddress?)] = []
        /// Callers waiting for a copy of the loop's report (a metrics scrape).
        var reportRequests: [@Sendable (Connection.Environment.Report) -> Void] = []
        var shutdownRequested = false
        var clockAdvanced = false

        var isEmpty: Bool {
            deliveries.isEmpty && streamMessages.isEmpty && adoptions.isEmpty && reportRequests.isEmpty && !shutdownRequested
                && !clockAdvanced
        }
    }

    private struct State: ~Copyable {
        var mail = Mail()
        var signalled = false
        var closed = false
    }

    private let state = Mutex(State())
    /// The eventfd the loop polls.
    let eventDescriptor: Int32

    init() throws(SystemError) {
        eventDescriptor = try blockingSystemCall("eventfd") {
            Linux.calls.eventFD(0, Linux.nonBlocking | Linux.closeOnExec)
        }
    }

    /// Hands `reply` to `connection`, if it is still open when the loop reads its mail.
    package func deliver(_ reply: Connection.Reply, to connection: ConnectionID) {
        post { $0.deliveries.append((connection, reply)) }
    }

    func publish(_ message: Connection.StreamMessage) { post { $0.streamMessages.append(message) } }

    /// Asks the loop for a copy of its report, which `reply` gets between two of its turns.
    func requestReport(_ reply: @escaping @Sendable (Connection.Environment.Report) -> Void) {
        post { $0.reportRequests.append(reply) }
    }

    /// Hands the loop a connection to serve; false when the loop has stopped (the caller
    /// closes it then).
    func adopt(_ descriptor: Int32, peer: IPAddress?) -> Bool {
        var posted = false
        post { mail in
            mail.adoptions.append((descriptor, peer))
            posted = true
        }
        return posted
    }

    func requestShutdown() { post { $0.shutdownRequested = true } }

    func clockAdvanced() { post { $0.clockAdvanced = true } }

    private func post(_ change: (inout Mail) -> Void) {
        let wakes = state.withLock { state in
            guard !state.closed else { return false }
            change(&state.mail)
            guard !state.signalled else { return false }
            state.signalled = true
            return true
        }
        guard wakes else { return }
        var one: UInt64 = 1
        _ = write(eventDescriptor, &one, 8)  // a full counter still wakes the loop
    }

    /// Called by the loop when the eventfd is readable: clears it and takes the mail. The queue
    /// stays signalled (posts wake nothing) until `takeMore` finds it empty.
    func take() -> Mail {
        var count: UInt64 = 0
        _ = read(eventDescriptor, &count, 8)
        return state.withLock { state in
            let mail = state.mail
            state.mail = Mail()
            return mail
        }
    }

    /// Called by the loop once it has handled what `take` (or this) gave it, before it waits
    /// again: the mail posted meanwhile, or nil when none was, and the next post wakes the
    /// loop. With `orWake` (the loop has taken several rounds in a row and lets its other
    /// descriptors have a turn), mail still waiting stays queued and the eventfd is written, so
    /// that the loop's next wait returns at once.
    func takeMore(orWake: Bool = false) -> Mail? {
        let next = state.withLock { state -> AfterMail in
            guard !state.mail.isEmpty else {
                state.signalled = false
                return .quiet
            }
            guard !orWake else { return .wake }
            defer { state.mail = Mail() }
            return .mail(state.mail)
        }
        switch next {
        case .quiet: return nil
        case .mail(let mail): return mail
        case .wake:
            var one: UInt64 = 1
            _ = write(eventDescriptor, &one, 8)  // outside the lock, as `post` writes
            return nil
        }
    }

    /// What the loop does once it has handled its mail (`takeMore`).
    private enum AfterMail {
        /// Waits: nothing came meanwhile.
        case quiet
        /// Lets its other descriptors have a turn, then takes the rest.
        case wake
        case mail(Mail)
    }

    /// The loop has stopped: later mail is dropped.
    func close() {
        state.withLock { $0.closed = true }
    }

    deinit {
        Glibc.close(eventDescriptor)
    }
}
