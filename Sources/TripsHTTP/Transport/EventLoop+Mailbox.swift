import Glibc
import TripsPlatform

/// Mail from other threads (adoptions, replies, stream messages, reports, shutdown), the
/// deadline sweep, and the graceful shutdown.
extension EventLoop {
    /// Handles the mail in an order that holds whatever order it was posted in: streams hear
    /// their messages before a shutdown ends them, and a shutdown takes hold before deferred
    /// replies are written, so that a reply that arrives with it (or after) is the last on its
    /// connection (an HTTP answer says `Connection: close`), which closes once it is sent.
    package func readMailbox() {
        let mail = mailbox.take()
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
    package func publish(_ messages: [Connection.StreamMessage]) {
        for descriptor in streams {
            guard let channel = channel(descriptor) else { continue }
            resetOutput()
            for message in messages { channel.connection.deliver(message, now: now, output: &output) }
            _ = flush(channel)
        }
    }

    package func sweep() {
        var earliest = now + .seconds(1)
        if let pausedUntil = acceptPausedUntil {
            if pausedUntil <= now { resumeAccepting() } else { earliest = min(earliest, pausedUntil) }
        }
        for case let channel? in channels {
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

    package func beginShutdown() {
        guard !shuttingDown else { return }
        shuttingDown = true
        environment.shutdownDidBegin()
        if let listening = listener?.descriptor { Linux.epollRemove(epoll.rawValue, listening) }
        listener = nil
        acceptPausedUntil = nil
        for case let channel? in channels {
            resetOutput()
            channel.connection.beginShutdown(output: &output)
            _ = flush(channel)
        }
    }
}
