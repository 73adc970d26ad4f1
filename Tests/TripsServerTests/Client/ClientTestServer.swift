import Foundation
import Synchronization
import TripsPlatform

@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

/// A live server for the client's tests on a store that outlives a restart (the journal in a
/// data folder of its own, or a PostgreSQL database of its own), which comes back on the
/// same port, so a client keeps its base URL.
final class ClientTestServer: @unchecked Sendable {
    private var store: any TripStoring
    private var api: APIServer
    private let open: () throws -> any TripStoring
    private let access: AccessPolicy?
    private let requiresIfMatch: Bool
    let port: Int

    private init(open: @escaping () throws -> any TripStoring, access: AccessPolicy?, requiresIfMatch: Bool) async throws {
        self.open = open
        self.access = access
        self.requiresIfMatch = requiresIfMatch
        store = try open()
        api = try await APIServer(store: store, mode: .live, access: access, requiresIfMatch: requiresIfMatch)
        port = api.port
    }

    /// Runs `body` with a server on a store of `kind` (`.memory`: the journal), stopped after;
    /// `access` as `--tokens` and `--private` set it, `requiresIfMatch` as `--require-if-match`.
    static func with<T: Sendable>(
        _ kind: TestStore, samples: Bool = true, access: AccessPolicy? = nil, requiresIfMatch: Bool = false,
        _ body: @Sendable (ClientTestServer) async throws -> T
    ) async throws -> T {
        try await kind.withReopenableStore(samples: samples) { open in
            try await withoutActuallyEscaping(open) { open in
                let server = try await ClientTestServer(open: open, access: access, requiresIfMatch: requiresIfMatch)
                do {
                    let result = try await body(server)
                    await server.stop()
                    return result
                } catch {
                    await server.stop()
                    throw error
                }
            }
        }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The ids in stored order, as the server holds them.
    var order: [Int] { api.order }

    /// Stops the server (ending every stream), closes the store, opens it again and serves
    /// it on the same port.
    func restart() async throws {
        await api.stopAndWait()
        store.close()
        store = try open()
        let port = port
        api = try await APIServer(store: store, mode: .live, access: access, requiresIfMatch: requiresIfMatch) { $0.port = port }
    }

    private func stop() async {
        await api.stopAndWait()
        store.close()
    }
}

/// A relay between a client and a server that loses answers on purpose: for the first
/// `drops` connections, the request reaches the server, which makes the change and answers,
/// and the client's connection is closed before any byte of that answer reaches it, as when
/// the server dies or the network breaks between the request and the answer.
final class DroppingProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    private let dropsLeft: Atomic<Int>
    /// How many answers were dropped.
    var dropped: Int { droppedCount.load(ordering: .acquiring) }
    private let droppedCount = Atomic(0)

    init(upstreamPort: Int, drops: Int) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw TestFailure("the proxy could not listen") }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        self.upstreamPort = upstreamPort
        dropsLeft = Atomic(drops)
        Thread { [self] in acceptLoop() }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Stops accepting (the accepting thread closes the listener); connections in flight end
    /// with their peers.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let upstream = Self.connect(port: upstreamPort) else {
                close(client)
                continue
            }
            let drops = dropsLeft.wrappingSubtract(1, ordering: .acquiringAndReleasing).oldValue > 0
            Thread { [self] in relay(client: client, upstream: upstream, dropping: drops) }.start()
        }
    }

    /// Relays one connection both ways, and closes both descriptors once both directions have
    /// ended: only shutdowns before that, so neither direction can touch a number the system
    /// has already given to the next connection.
    private func relay(client: Int32, upstream: Int32, dropping: Bool) {
        let requestDone = DispatchSemaphore(value: 0)
        Thread {
            Self.pump(from: client, to: upstream)
            requestDone.signal()
        }.start()
        if dropping {
            // The first bytes of the answer mean the change was made: lose them.
            var byte: UInt8 = 0
            _ = read(upstream, &byte, 1)
            droppedCount.add(1, ordering: .releasing)
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
        } else {
            Self.pump(from: upstream, to: client)
        }
        requestDone.wait()
        close(client)
        close(upstream)
    }

    /// Copies bytes until either side ends, then shuts both down (the relay closes them).
    private static func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0, buffer.withUnsafeBytes({ send(destination, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }) == count else {
                break
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    private static func connect(port: Int) -> Int32? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}

/// `body`'s result, or a failure once `seconds` pass first: a guard against a test that
/// would otherwise wait forever, never a wait the test relies on. The watchdog is the
/// server's own clock (`SystemClock.schedule`): when it fires it cancels `body`, whose waits
/// all end on cancellation (`TestTime`, the hostile server's reads). The tests give a minute:
/// in a whole run with PostgreSQL's live tests, which hold the two cooperative threads while
/// they wait for the database, a test that takes a second alone was seen waiting 10 s for one.
func within<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let work = Task { try await body() }
    let expired = Atomic(false)
    SystemClock().schedule(after: .seconds(seconds * TestTimeout.scale)) {
        expired.store(true, ordering: .relaxed)
        work.cancel()
    }
    do {
        let result = try await work.value
        return result
    } catch {
        if expired.load(ordering: .relaxed) { throw TestFailure("nothing within \(seconds) s") }
        throw error
    }
}
