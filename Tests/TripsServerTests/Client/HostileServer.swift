import Foundation
import Synchronization
import TripsPlatform

/// A server that answers as a test scripts it, over a raw socket on an ephemeral port: the
/// answers no Trips server sends (too large, without end, silent), to test the client's
/// limits. Each connection runs on a thread of its own; it stays open after its answer until
/// the client closes it or `stop()`.
final class HostileServer: Sendable {
    /// One accepted connection.
    struct Connection: Sendable {
        let descriptor: Int32

        /// Writes all of `bytes`; false once the peer is gone.
        @discardableResult func write(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }

        @discardableResult func write(_ text: String) -> Bool { write(Array(text.utf8)) }
    }

    private struct State {
        var heads: [String] = []
        var closed = 0
        var waiters: [(id: Int, ready: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var lastWaiterID = 0
        var open: Set<Int32> = []
        var isStopped = false
    }

    let port: Int
    private let listener: Int32
    private let state = Mutex(State())
    private let answer: @Sendable (_ number: Int, _ head: String, _ connection: Connection) -> Void

    /// Listens on 127.0.0.1; `answer` writes the answer to each connection's first request
    /// (numbered from 1, its head as text).
    init(_ answer: @escaping @Sendable (_ number: Int, _ head: String, _ connection: Connection) -> Void) throws {
        let listening = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 16)
        // The server's listener does not block; this one's thread waits in accept.
        _ = fcntl(listening.descriptor, F_SETFL, fcntl(listening.descriptor, F_GETFL) & ~O_NONBLOCK)
        listener = listening.descriptor
        port = listening.port
        self.answer = answer
        Thread { [self] in acceptLoop() }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The heads of the requests read so far, in order.
    var heads: [String] { state.withLock { $0.heads } }

    /// Returns once `count` requests have arrived.
    func requests(_ count: Int) async {
        await until { $0.heads.count >= count }
    }

    /// Returns once the client has closed `count` connections (or `stop()` shut them).
    func closed(_ count: Int) async {
        await until { $0.closed >= count }
    }

    /// Shuts every connection and the listener down; each thread closes its own descriptor.
    func stop() {
        state.withLock { state in
            state.isStopped = true
            for descriptor in state.open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// A field's value in a request head, by a case-insensitive name.
    static func field(_ name: String, in head: String) -> String? {
        for line in head.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name.lowercased() else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Returns once `ready` holds, or the task is cancelled: a test's bound (`within`) ends it.
    private func until(_ ready: @escaping @Sendable (State) -> Bool) async {
        let id = state.withLock { state in
            state.lastWaiterID += 1
            return state.lastWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if ready(state) || Task.isCancelled { return true }
                    state.waiters.append((id, ready, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume()
        }
    }

    private func changed(_ change: (inout State) -> Void) {
        let ready = state.withLock { state in
            change(&state)
            let snapshot = state
            let ready = state.waiters.filter { $0.ready(snapshot) }.map(\.continuation)
            state.waiters.removeAll { $0.ready(snapshot) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else { return }
            let admitted = state.withLock { state in
                guard !state.isStopped else { return false }
                state.open.insert(descriptor)
                return true
            }
            guard admitted else {
                close(descriptor)
                return
            }
            Thread { [self] in serve(Connection(descriptor: descriptor)) }.start()
        }
    }

    private func serve(_ connection: Connection) {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.ends(with: Array("\r\n\r\n".utf8)), head.count < 64 << 10, read(connection.descriptor, &byte, 1) == 1 {
            head.append(byte)
        }
        let text = String(decoding: head, as: UTF8.self)
        var number = 0
        changed { state in
            state.heads.append(text)
            number = state.heads.count
        }
        answer(number, text, connection)
        // Open until the client closes it (or `stop()` shuts it down).
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(connection.descriptor, &buffer, buffer.count) > 0 {}
        changed { state in
            state.open.remove(connection.descriptor)
            state.closed += 1
        }
        close(connection.descriptor)
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
