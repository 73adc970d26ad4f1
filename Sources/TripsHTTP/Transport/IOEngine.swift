/// How the event loops ask the kernel for I/O (`--io`).
package enum IOEngine: String, Sendable, CaseIterable {
    /// Readiness: epoll says which sockets are ready, then a `recv` and a `send` per request.
    /// The default, and what runs wherever io_uring is refused.
    case epoll
    /// Completions: io_uring does the reads and writes it is handed, one system call a turn
    /// for all of them (`UringEventLoop`). Refused by many containers' seccomp filters and by
    /// `kernel.io_uring_disabled`; the server then runs on epoll and says so.
    case uring
}
