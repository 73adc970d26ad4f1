import Dispatch
import Foundation
import Glibc
import Synchronization
import TripsPlatform

/// The HTTP/1.1 server: a fixed set of event loop threads sharing one listening socket, none
/// per connection.
///
///     let server = HTTPServer(configuration: .init(), handler: MyHandler())
///     try server.start()   // or: try server.start(on: listener), bound earlier
///     server.shutdownOnSignals()
///     server.waitUntilStopped()
package final class HTTPServer: Sendable {
    package let configuration: HTTPServerConfiguration
    private let handler: any HTTPHandler
    private let clock: any ServerClock
    private let loopsRunning = DispatchGroup()

    private struct State {
        var started = false
        var port = 0
        var engine = IOEngine.epoll
        /// Why the configured io_uring was refused, if it was.
        var uringRefusal: SystemError?
        var mailboxes: [HTTPLoopMailbox] = []
        var signalSources: [any DispatchSourceSignal] = []
    }

    private let state = Mutex(State())

    /// Where streamed responses get their messages; the server attaches its loops to it.
    private let streams: HTTPStreamHub?
    /// Where a scrape collects the loops' metrics; the server attaches its loops to it.
    private let metrics: HTTPServerMetrics?

    package init(
        configuration: HTTPServerConfiguration, handler: any HTTPHandler, clock: any ServerClock = SystemClock(),
        streams: HTTPStreamHub? = nil, metrics: HTTPServerMetrics? = nil
    ) {
        self.configuration = configuration
        self.handler = handler
        self.clock = clock
        self.streams = streams
        self.metrics = metrics
    }

    /// The bound port (the chosen one when the configuration says 0); 0 before `start()`.
    package var port: Int { state.withLock { $0.port } }

    /// How the loops ask for I/O: the configured engine, or epoll where io_uring was refused.
    package var engine: IOEngine { state.withLock { $0.engine } }
    /// Why the configured io_uring was refused (the server runs on epoll then), if it was.
    package var uringRefusal: SystemError? { state.withLock { $0.uringRefusal } }

    /// Binds the configured address, then starts the loop threads. Throws if the address
    /// cannot be bound.
    package func start() throws(SystemError) {
        try start(on: Listener(host: configuration.host, port: configuration.port, backlog: configuration.backlog))
    }

    /// Starts the loop threads on a socket bound earlier; it is closed once they stop.
    package func start(on listener: Listener) throws(SystemError) {
        Socket.ignoreSIGPIPE()
        Socket.raiseOpenFileLimit()
        var mailboxes: [HTTPLoopMailbox] = []
        var setups: [EventLoopSetup<HTTPConnection>] = []
        var uringRefusal: SystemError?
        do throws(SystemError) {
            let loopCount = max(1, configuration.eventLoopCount)
            for _ in 0..<loopCount { mailboxes.append(try HTTPLoopMailbox()) }
            let spreader = ConnectionSpreader(mailboxes)
            let quota = ConnectionQuota(limit: configuration.limits.maxConnections)
            var engine = configuration.engine
            var index = 0
            while index < loopCount {
                do throws(SystemError) {
                    setups.append(
                        try EventLoopSetup(
                            index: index, engine: engine, uringEntries: configuration.uringEntries, listener: listener,
                            mailbox: mailboxes[index], spreader: spreader,
                            quota: quota, clock: clock, maxStreamBacklog: configuration.limits.maxStreamBacklog,
                            makeEnvironment: environmentMaker(loopIndex: index, mailbox: mailboxes[index])))
                    index += 1
                } catch  where engine == .uring {
                    // Refused (a seccomp filter, a sysctl, an old kernel): every loop runs on epoll.
                    uringRefusal = error
                    engine = .epoll
                    setups.removeAll()
                    index = 0
                }
            }
            try state.withLock { state throws(SystemError) in
                guard !state.started else { throw SystemError(call: "HTTPServer.start", errno: EALREADY) }
                state.started = true
                state.port = listener.port
                state.engine = engine
                state.uringRefusal = uringRefusal
                state.mailboxes = mailboxes
                streams?.attach(mailboxes)
                metrics?.attach(mailboxes)
            }
        } catch {
            for setup in setups { setup.discard() }
            for mailbox in mailboxes { mailbox.close() }
            throw error
        }
        for setup in setups {
            loopsRunning.enter()
            let group = loopsRunning
            let thread = Thread {
                setup.run()
                group.leave()
            }
            thread.name = "trips-loop-\(setup.index)"
            thread.start()
        }
    }

    /// How loop `loopIndex` makes what its connections share, on its own thread.
    private func environmentMaker(
        loopIndex: Int, mailbox: HTTPLoopMailbox
    ) -> @Sendable () -> ConnectionEnvironment {
        { [handler, configuration, clock] in
            ConnectionEnvironment(
                handler: handler, configuration: configuration, sink: mailbox,
                dates: DateCache(epochSeconds: time(nil)), clock: clock,
                requestIDs: RequestIDGenerator(loopIndex: loopIndex), traces: TraceContextGenerator(),
                accessLog: configuration.logsRequests
                    ? AccessLog(descriptor: configuration.accessLogDescriptor, format: configuration.logFormat) : nil)
        }
    }

    /// Starts a graceful shutdown and returns at once: the loops stop accepting, close idle
    /// connections, finish requests in flight (deferred ones too), then stop.
    package func beginShutdown() {
        let mailboxes = state.withLock { $0.mailboxes }
        for mailbox in mailboxes { mailbox.requestShutdown() }
    }

    /// Shuts down gracefully and returns when every loop has stopped.
    package func shutdown() async {
        beginShutdown()
        await stopped()
    }

    /// Returns when every loop has stopped.
    package func stopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loopsRunning.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Blocks the calling thread until every loop has stopped. For `main`, not for tasks.
    package func waitUntilStopped() {
        loopsRunning.wait()
    }

    /// Begins a graceful shutdown on any of `signals` (default SIGTERM and SIGINT), after
    /// telling `onSignal` which one arrived.
    package func shutdownOnSignals(
        _ signals: [Int32] = [SIGTERM, SIGINT], onSignal: @escaping @Sendable (Int32) -> Void = { _ in }
    ) {
        state.withLock { state in
            for number in signals {
                signal(number, SIG_IGN)  // let the dispatch source, not the default action, see it
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in
                    onSignal(number)
                    self?.beginShutdown()
                }
                source.resume()
                state.signalSources.append(source)
            }
        }
    }
}
