import Foundation
import Synchronization
import Testing
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// A request's W3C trace context reaches PostgreSQL: its transaction runs under the
/// `application_name` of the request's span, where `pg_stat_activity` shows it.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresTraceLiveTests {
    @Test func aChangesTransactionIsNamedAfterItsRequestsTraceparent() async throws {
        let database = try await onOwnThread { try LiveDatabase.createDatabase(named: "trips_trace") }
        defer { database.drop() }
        let store = try await onOwnThread { try PostgresTripStore(connection: database.configuration) }
        let api = try await APIServer(store: store, mode: .live, cleanUp: { store.close() })
        defer { api.stop() }
        let port = api.port
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        let name = database.configuration.database
        let (seen, answer, after) = try await onOwnThread { () throws -> (String?, TestResponse?, String?) in
            // Another session holds the state row every write locks first: the change's
            // transaction waits there, under its name, until the holder lets go.
            let holder = try PostgresConnection.connect(database.configuration)
            defer { holder.close() }
            try holder.simpleQuery("BEGIN; SELECT 1 FROM trips_state FOR UPDATE")
            let answer = Mutex<TestResponse?>(nil)
            let answered = DispatchSemaphore(value: 0)
            Thread {
                let request = TestRequest(
                    method: "PUT", target: "/favorites/3", headers: ["traceparent": "00-\(traceID)-00f067aa0ba902b7-01"], closes: true)
                answer.withLock { $0 = try? TestClient(port: port).exchange(request) }
                answered.signal()
            }.start()
            let watcher = try LiveDatabase.connect()
            defer { watcher.close() }
            let waiting = "SELECT application_name FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE $2"
            var seen: String?
            let deadline = ContinuousClock.now + .seconds(10)
            while seen == nil && ContinuousClock.now < deadline {
                seen = try watcher.query(waiting, [name, "00-\(traceID)-%"]).rows.first?[0] ?? nil
            }
            try holder.simpleQuery("ROLLBACK")
            answered.wait()
            // Once committed, the writer's session has its own name back.
            let after = try watcher.query(waiting, [name, "00-%"]).rows.first?[0] ?? nil
            return (seen, answer.withLock { $0 }, after)
        }
        let response = try #require(answer)
        #expect(response.status == 200)
        let traceparent = try #require(response.field("traceparent"))
        #expect(traceparent.hasPrefix("00-\(traceID)-") && traceparent.hasSuffix("-01"))
        #expect(seen == traceparent, "the transaction carries the server's span of the request")
        #expect(after == nil)
    }
}
