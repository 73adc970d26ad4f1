import Synchronization
import TripsPlatform

/// Hands new connections to the event loops in turn. Whichever loop the kernel wakes for the
/// shared listener accepts; the connection then goes to the next loop in the rotation (its
/// own, or another's through that loop's mailbox). Without this, the loop that happens to be
/// awake takes a whole burst of connections while the others idle, since EPOLLEXCLUSIVE
/// wakes one waiter and a level-triggered listener keeps it busy.
final class ConnectionSpreader<Connection: LoopConnection>: Sendable {
    private let mailboxes: [LoopMailbox<Connection>]
    private let turn = Atomic<Int>(0)

    init(_ mailboxes: [LoopMailbox<Connection>]) {
        self.mailboxes = mailboxes
    }

    /// The loop that takes the next connection.
    func nextLoop() -> Int {
        let count = mailboxes.count
        guard count > 1 else { return 0 }
        return (turn.add(1, ordering: .relaxed).newValue & Int.max) % count
    }

    /// Gives `descriptor`, from `peer`, to loop `index`; false when that loop has stopped
    /// (close it then).
    func give(_ descriptor: Int32, peer: IPAddress?, to index: Int) -> Bool {
        mailboxes[index].adopt(descriptor, peer: peer)
    }
}
