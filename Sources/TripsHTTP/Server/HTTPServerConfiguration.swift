import Glibc
import TripsPlatform

/// Everything the server can be tuned with, as a value.
package struct HTTPServerConfiguration: Sendable, Hashable {
    /// The address to listen on, numeric or a name (`127.0.0.1`, `::1`, `0.0.0.0`, `localhost`).
    /// Default: 127.0.0.1.
    package var host: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one (read it from `HTTPServer.port` after `start()`). Default: 8080.
    package var port: Int = 8080
    /// Event loop threads. Default: the cores the process may run on (`Linux.usableCores()`).
    package var eventLoopCount: Int = Linux.usableCores()
    /// How the loops ask the kernel for I/O (`--io`). Default: epoll. Where io_uring is
    /// refused, the server runs on epoll (`HTTPServer.engine` says which runs).
    package var engine: IOEngine = .epoll
    /// Submission slots of each loop's io_uring (a power of two; the kernel refuses 0).
    /// Default: 1,024; a fuller queue is handed to the kernel before the turn ends.
    package var uringEntries = 1024
    /// The listen backlog of each loop's socket. Default: 1024.
    package var backlog: Int32 = 1024
    /// Whether each answered request gets a logfmt line on standard output. Default: off
    /// (tests); `trips-server` turns it on unless `--log-level` is above `info`.
    package var logsRequests = false
    /// How request lines are written: logfmt or JSON (`--log-format`). Default: logfmt.
    package var logFormat: LogFormat = .logfmt
    /// Where request lines go. Default: standard output.
    package var accessLogDescriptor: Int32 = STDOUT_FILENO
    package var limits = Limits()
    package var timeouts = Timeouts()

    /// Size limits on requests, each enforced before the excess is buffered.
    package struct Limits: Sendable, Hashable {
        /// Longest request line, without CRLF. Past it: 414. Default: 8,192 (8 KiB).
        package var maxRequestLineLength: Int = 8 * 1024
        /// Longest field section (field lines with their CRLFs and the empty line; trailers count
        /// too). Past it: 431. Default: 16,384 (16 KiB).
        package var maxHeaderSectionLength: Int = 16 * 1024
        /// Most field lines in a request. Past it: 431. Default: 100.
        package var maxHeaderFieldCount: Int = 100
        /// Longest content, declared by Content-Length or summed over chunks. Past it: 413.
        /// Default: 1,048,576 (1 MiB).
        package var maxBodyLength: Int = 1024 * 1024
        /// Longest chunk size line, extensions included. Past it: 400. Default: 1,024.
        package var maxChunkLineLength: Int = 1024
        /// Most bytes a stream's client may leave unread before the server closes it (it
        /// resumes from where it was). Default: 1,048,576 (1 MiB).
        package var maxStreamBacklog: Int = 1024 * 1024
        /// Most bytes of answers a client may leave unread before the server stops parsing its
        /// further pipelined requests (and reading its socket); it goes on as the client reads,
        /// so a connection holds at most this plus one answer. Default: 65,536 (64 KiB).
        package var maxAnswerBacklog: Int = 64 * 1024
        /// Most connections open at once, over all event loops. Past it a new connection is
        /// accepted and closed at once, and counted in `/metrics`. Default: 10,000.
        package var maxConnections: Int = 10_000
    }

    /// How long the server waits for a client.
    package struct Timeouts: Sendable, Hashable {
        /// From the first byte of a request (or the connection's opening) to the end of its
        /// header section. Then 408 and close. Default: 10 s.
        package var header: Duration = .seconds(10)
        /// Longest wait for the next bytes of a request's content. Then 408 and close. Default: 30 s.
        package var bodyStall: Duration = .seconds(30)
        /// How long content may arrive at any pace; past it, it must have averaged at least
        /// `minimumBodyRate` since the header section ended, or 408 and close. Default: 10 s.
        package var bodyGrace: Duration = .seconds(10)
        /// The slowest average pace of content after `bodyGrace`, in bytes per second, so that a
        /// byte now and then cannot hold a connection and its buffer for hours (0: no minimum).
        /// Default: 1,024.
        package var minimumBodyRate: Int = 1024
        /// Longest wait for the next request on a kept-alive connection. Then a silent close.
        /// Default: 60 s.
        package var idle: Duration = .seconds(60)
        /// Longest wait for a client to take any of a response it does not read. Then a silent
        /// close. Default: 30 s.
        package var writeStall: Duration = .seconds(30)
        /// How long a stream may stay silent before a comment line keeps proxies from closing
        /// it. Default: 15 s.
        package var heartbeat: Duration = .seconds(15)
        /// After an error response, how long the connection drains what the client still sends
        /// so that the response is not lost to a reset. Default: 2 s.
        package var lingeringClose: Duration = .seconds(2)
    }
}

extension HTTPServerConfiguration {
    /// Every setting at its default. (The memberwise initializer stays internal: an explicit
    /// `package init` would replace it, and the defaults are written once, above.)
    package static var defaults: Self { Self() }
}
