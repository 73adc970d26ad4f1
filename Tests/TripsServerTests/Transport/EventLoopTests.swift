import Foundation
import Synchronization
import Testing

@testable import TripsHTTP
@testable import TripsPlatform

/// The event loop with a connection that is not HTTP: it moves bytes, replies posted from other
/// threads, stream messages and reports for any `LoopConnection`, and shuts down through it.
@Suite struct EventLoopTests {
    /// A loop of echo connections on its own thread, listening on an ephemeral port; `stopped`
    /// is signalled once it has stopped. The thread starts here and now: an `async let` would
    /// wait for a thread of the shared pool, which other tests' blocking work can hold longer
    /// than the client waits.
    private static func startLoop(
        engine: IOEngine
    ) throws -> (listener: Listener, mailbox: LoopMailbox<EchoConnection>, opened: OpenedConnections, stopped: DispatchSemaphore) {
        let listener = try Listener(host: "127.0.0.1", port: 0, backlog: 4)
        let mailbox = try LoopMailbox<EchoConnection>()
        let opened = OpenedConnections()
        let setup = try EventLoopSetup(
            index: 0, engine: engine, listener: listener, mailbox: mailbox, spreader: ConnectionSpreader([mailbox]),
            quota: ConnectionQuota(limit: 4), clock: SystemClock(), maxStreamBacklog: 1 << 20,
            makeEnvironment: { EchoEnvironment(opened: opened) })
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            setup.run()
            stopped.signal()
        }.start()
        return (listener, mailbox, opened, stopped)
    }

    @Test(arguments: IOEngine.allCases)
    func aLoopServesAConnectionThatSpeaksNoHTTP(engine: IOEngine) async throws {
        let (listener, mailbox, opened, stopped) = try Self.startLoop(engine: engine)
        let transcript = try await onOwnThread {
            defer { mailbox.requestShutdown() }  // also when the client fails, so the loop stops
            let client = try TestClient(port: listener.port)
            var transcript: [String] = []
            try client.send("hello.")
            transcript.append(try client.readUntil("."))
            try client.send("wait.")  // the connection reads nothing more until a reply comes
            transcript.append(try client.readUntil("."))
            guard let id = opened.ids.withLock({ $0.first }) else { throw TestFailure("no connection was opened") }
            mailbox.deliver(Array("reply.".utf8), to: id)
            transcript.append(try client.readUntil("."))
            try client.send("follow.")
            transcript.append(try client.readUntil("."))
            mailbox.publish(Array("news.".utf8))
            transcript.append(try client.readUntil("."))
            let reported = Mutex<Int?>(nil)
            let answered = DispatchSemaphore(value: 0)
            mailbox.requestReport { open in
                reported.withLock { $0 = open }
                answered.signal()
            }
            guard answered.wait(timeout: .now() + .seconds(5 * TestTimeout.scale)) == .success else {
                throw TestFailure("the loop sent no report")
            }
            transcript.append("open: \(reported.withLock { $0 } ?? -1)")
            mailbox.requestShutdown()  // the loop says "bye." and closes
            transcript.append(try client.readToEnd())
            return transcript
        }
        #expect(stopped.wait(timeout: .now() + .seconds(5 * TestTimeout.scale)) == .success, "the loop did not stop")
        #expect(transcript == ["hello.", "wait.", "reply.", "follow.", "news.", "open: 1", "bye."])
    }

    /// A reply completed later, from another thread, is written without reading the socket
    /// again when the last read found it emptied: its client sends nothing before it has the
    /// reply, and such a read is a system call refused with `EAGAIN` (one a write made, on
    /// either store). Bytes that came while the connection waited are still read.
    @Test func aReplyCompletedLaterReadsNoSocketItKnowsIsEmpty() async throws {
        let (listener, mailbox, opened, stopped) = try Self.startLoop(engine: .epoll)
        let transcript = try await onOwnThread {
            defer { mailbox.requestShutdown() }
            let client = try TestClient(port: listener.port)
            var transcript: [String] = []
            try client.send("wait.")
            transcript.append(try client.readUntil("."))
            guard let id = opened.ids.withLock({ $0.first }) else { throw TestFailure("no connection was opened") }
            for round in 1...3 {
                mailbox.deliver(Array("reply\(round).".utf8), to: id)
                transcript.append(try client.readUntil("."))
                try client.send("wait.")
                transcript.append(try client.readUntil("."))
            }
            // Sent while the connection reads nothing: read once the reply comes.
            try client.send("early.")
            mailbox.deliver(Array("last.".utf8), to: id)
            transcript.append(try client.readUntil("."))
            transcript.append(try client.readUntil("."))
            return transcript
        }
        #expect(stopped.wait(timeout: .now() + .seconds(5 * TestTimeout.scale)) == .success, "the loop did not stop")
        #expect(transcript == ["wait.", "reply1.", "wait.", "reply2.", "wait.", "reply3.", "wait.", "last.", "early."])
        #expect(opened.emptyReads.load(ordering: .relaxed) == 0)
    }
}

/// The ids of the connections a loop opened, for a test to address replies to.
final class OpenedConnections: Sendable {
    let ids = Mutex<[ConnectionID]>([])
    /// Reads of their sockets that found nothing there.
    let emptyReads = Atomic<Int>(0)
}

/// What echo connections share: where they note their ids.
final class EchoEnvironment: LoopEnvironment {
    let opened: OpenedConnections
    init(opened: OpenedConnections) { self.opened = opened }
    func loopDidWake() {}
    func loopTurnDidEnd() {}
    func connectionRefused() {}
    func readFoundNothing() { opened.emptyReads.add(1, ordering: .relaxed) }
    func shutdownDidBegin() {}
    func report(openConnections: Int) -> Int { openConnections }
}

/// Echoes what it reads; after "wait." it reads nothing until a reply comes; after "follow."
/// it hears stream messages; at shutdown it says "bye." and closes.
final class EchoConnection: LoopConnection {
    let id: ConnectionID
    var pendingOutput: [UInt8] = []
    var lifecycle = LoopConnectionLifecycle.open
    var isStreaming = false
    private var awaitingReply = false

    init(id: ConnectionID, peer: IPAddress?, environment: EchoEnvironment, now: MonotonicInstant) {
        self.id = id
        environment.opened.ids.withLock { $0.append(id) }
    }

    var isReadable: Bool { lifecycle == .open && !awaitingReply }
    var canResume: Bool { false }

    func receive(_ bytes: UnsafeRawBufferPointer, now: MonotonicInstant, output: inout [UInt8]) {
        output.append(contentsOf: bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("wait.") { awaitingReply = true }
        if text.hasSuffix("follow.") { isStreaming = true }
    }

    func resume(now: MonotonicInstant, output: inout [UInt8]) {}
    func peerDidClose() { lifecycle = .closed }
    func noteWriteProgress(now: MonotonicInstant) {}
    func beginLingering(now: MonotonicInstant) { lifecycle = .closed }
    func didClose() {}

    func complete(_ reply: [UInt8], now: MonotonicInstant, output: inout [UInt8]) {
        awaitingReply = false
        output.append(contentsOf: reply)
    }

    func deliver(_ message: [UInt8], now: MonotonicInstant, output: inout [UInt8]) {
        output.append(contentsOf: message)
    }

    func deadline() -> MonotonicInstant? { nil }
    func expire(now: MonotonicInstant, output: inout [UInt8]) {}

    func beginShutdown(output: inout [UInt8]) {
        output.append(contentsOf: "bye.".utf8)
        lifecycle = .closing
    }
}
