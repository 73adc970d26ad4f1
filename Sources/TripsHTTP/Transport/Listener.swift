import Glibc
import TripsPlatform

/// A bound, listening socket, shared by every event loop of a server.
///
/// Binding is its own step so that `trips-server` can fail on a taken or foreign address
/// before it creates or opens anything else (a data folder, say). Each loop's epoll set
/// watches the one socket with EPOLLEXCLUSIVE, so a new connection wakes one loop, not all.
package final class Listener: Sendable {
    package let descriptor: Int32
    /// The bound port: the one the kernel chose when asked for port 0.
    package let port: Int

    /// Binds and listens on `host:port`; throws `SystemError` (EADDRINUSE, EADDRNOTAVAIL, …).
    package init(host: String, port: Int, backlog: Int32) throws(SystemError) {
        (descriptor, self.port) = try Socket.listen(host: host, port: port, backlog: backlog)
    }

    /// Closed once the server and every loop have let go of it.
    deinit { close(descriptor) }
}
