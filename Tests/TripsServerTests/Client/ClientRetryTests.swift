import Foundation
import Synchronization
import Testing
import TripsDomain

@testable import TripsClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Retries: the same idempotency key after a lost answer or a 503, so a change is made once.
@Suite struct ClientRetryTests {
    /// Records the waits a client asked for, and returns at once.
    final class Waits: Sendable {
        private let waits = Mutex<[Duration]>([])
        var recorded: [Duration] { waits.withLock { $0 } }
        var policy: RetryPolicy {
            RetryPolicy(maxAttempts: 4) { duration in self.waits.withLock { $0.append(duration) } }
        }
    }

    @Test(arguments: TestStore.all) func aChangeWhoseAnswerIsLostIsMadeOnce(store: TestStore) async throws {
        try await ClientTestServer.with(store) { server in
            let proxy = try DroppingProxy(upstreamPort: server.port, drops: 1)
            defer { proxy.stop() }
            let waits = Waits()
            let client = TripsClient(baseURL: proxy.url, retry: waits.policy)
            let created = try await client.create(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027")
            #expect(proxy.dropped == 1)
            #expect(waits.recorded == [.milliseconds(250)])
            #expect(created.value.id == 7)
            #expect(server.order == [1, 2, 3, 4, 5, 6, 7])
        }
    }

    /// Answers from a script, recording each request's idempotency key.
    final class ScriptedTransport: HTTPTransport {
        private let script: Mutex<[(status: Int, fields: [String: String])]>
        private let keys = Mutex<[String?]>([])
        var sentKeys: [String?] { keys.withLock { $0 } }

        init(_ script: [(status: Int, fields: [String: String])]) {
            self.script = Mutex(script)
        }

        func send(_ request: URLRequest, maxBytes: Int) async throws -> (Data, HTTPURLResponse) {
            keys.withLock { $0.append(request.value(forHTTPHeaderField: "Idempotency-Key")) }
            guard let (status, fields) = script.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                throw URLError(.networkConnectionLost)
            }
            guard status > 0 else { throw URLError(.networkConnectionLost) }
            let body = status == 204 ? Data() : Data(#"{"status":\#(status),"title":"T","detail":"D \#(status)"}"#.utf8)
            return (body, HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!)
        }
    }

    @Test func everyTryOfAChangeSendsTheSameKeyBackingOffAndHonouringRetryAfter() async throws {
        let transport = ScriptedTransport([(0, [:]), (503, ["Retry-After": "2"]), (409, [:]), (204, ["Trips-Revision": "9"])])
        let waits = Waits()
        let client = TripsClient(baseURL: URL(string: "http://127.0.0.1:1")!, retry: waits.policy, transport: transport)
        #expect(try await client.delete(3) == 9)
        #expect(waits.recorded == [.milliseconds(250), .seconds(2), .seconds(1)])
        #expect(transport.sentKeys.count == 4 && Set(transport.sentKeys).count == 1 && transport.sentKeys[0] != nil)
    }

    @Test func aClientGivesUpAfterItsLastTryWithTheLastError() async throws {
        let transport = ScriptedTransport([(503, [:]), (503, [:])])
        let client = TripsClient(
            baseURL: URL(string: "http://127.0.0.1:1")!, retry: RetryPolicy(maxAttempts: 2) { _ in }, transport: transport)
        let error = await #expect(throws: TripsClientError.self) { try await client.delete(3) }
        guard case .unavailable(let problem)? = error else { throw TestFailure("not unavailable: \(String(describing: error))") }
        #expect(problem.detail == "D 503")
    }

    @Test func aRefusalIsNotTriedAgainAndAReadHasNoKey() async throws {
        let transport = ScriptedTransport([(422, [:]), (404, [:])])
        let client = TripsClient(baseURL: URL(string: "http://127.0.0.1:1")!, retry: RetryPolicy { _ in }, transport: transport)
        await #expect(throws: TripsClientError.self) { try await client.delete(3) }
        await #expect(throws: TripsClientError.self) { try await client.trip(3) }
        #expect(transport.sentKeys.count == 2 && transport.sentKeys[1] == nil)
    }
}
