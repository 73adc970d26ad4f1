import Synchronization
import Testing

/// Live API servers that the tests of a suite share, one per configuration, for exchanges
/// that change nothing: started on first use, stopped once the whole suite has run. A server
/// per test costs a start, a loop and a place among `AsyncLimit.liveServers` for nothing
/// when the test only reads or is refused.
///
///     @Suite(.sharingAPIServers) struct Tests {
///         @Test func aRead() async throws {
///             let api = try await SharedAPIServers.server(for: "public") { try await APIServer(mode: .live) }
final class SharedAPIServers: Sendable {
    /// The servers of the suite whose test is running.
    @TaskLocal fileprivate static var current: SharedAPIServers?

    private let servers = Mutex<[AnyHashable: Task<APIServer, any Error>]>([:])

    /// The suite's server for `key`, which `start` starts when the suite has none yet (once,
    /// however many tests ask at the same time).
    static func server(
        for key: some Hashable & Sendable, start: @escaping @Sendable () async throws -> APIServer
    ) async throws -> APIServer {
        guard let shared = current else { throw TestFailure("a shared server needs its suite to be @Suite(.sharingAPIServers)") }
        let starting = shared.servers.withLock { servers in
            if let starting = servers[AnyHashable(key)] { return starting }
            let starting = Task { try await start() }
            servers[AnyHashable(key)] = starting
            return starting
        }
        return try await starting.value
    }

    fileprivate func stopAll() async {
        for starting in servers.withLock({ Array($0.values) }) { try? await starting.value.stop() }
    }
}

/// Gives the suite it is applied to its `SharedAPIServers`.
struct SharingAPIServers: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let servers = SharedAPIServers()
        do {
            try await SharedAPIServers.$current.withValue(servers, operation: function)
        } catch {
            await servers.stopAll()
            throw error
        }
        await servers.stopAll()
    }
}

extension Trait where Self == SharingAPIServers {
    /// Lets the suite's tests share live API servers: `SharedAPIServers.server(for:start:)`.
    static var sharingAPIServers: Self { Self() }
}
