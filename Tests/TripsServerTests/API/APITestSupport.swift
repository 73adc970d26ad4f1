import Foundation
import TripsDomain
@testable import TripsServer

/// A Trips server on an ephemeral port over an in-memory store, and a way to talk to it.
final class APIServer: Sendable {
    let server: HTTPServer
    let store: TripStore

    convenience init(samples: Bool = true) throws {
        try self.init(store: TripStore(directory: nil, seedSamples: samples))
    }

    init(store: TripStore) throws {
        self.store = store
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.eventLoopCount = 1
        server = HTTPServer(configuration: configuration, handler: TripsAPI(store: store))
        try server.start()
    }

    /// Sends one request on a new connection and reads the answer. Runs on its own thread.
    func request(
        _ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil
    ) async throws -> TestResponse {
        let port = server.port
        return try await onOwnThread {
            let client = try TestClient(port: port)
            var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
            let bytes = Array((body ?? "").utf8)
            if body != nil { head += "Content-Length: \(bytes.count)\r\n" }
            try client.send(Array((head + "\r\n").utf8) + bytes)
            return try client.readResponse(head: method == "HEAD")
        }
    }

    /// The same request with a JSON body.
    func json(_ method: String, _ target: String, _ body: String, headers: [String: String] = [:]) async throws -> TestResponse {
        var headers = headers
        headers["Content-Type"] = headers["Content-Type"] ?? "application/json"
        return try await request(method, target, headers: headers, body: body)
    }

    /// The stored order of ids.
    var order: [Int] { store.list.trips.map(\.id) }

    /// Starts a graceful shutdown; the loop finishes on its own. Synchronous, for `defer`.
    func stop() {
        server.beginShutdown()
    }
}

extension TestResponse {
    /// The body parsed as JSON.
    var json: JSONValue {
        get throws { try JSONValue(parsing: body) }
    }

    /// The ids of a JSON array of trips.
    var ids: [Int] {
        get throws {
            guard case .array(let trips) = try json else { throw TestFailure("not an array: \(text)") }
            return trips.compactMap { trip in
                if case .object(let members) = trip, case .number(let id)? = members["id"] { return Int(id) }
                return nil
            }
        }
    }

    /// A member of a JSON object body.
    func member(_ name: String) throws -> JSONValue? {
        guard case .object(let members) = try json else { throw TestFailure("not an object: \(text)") }
        return members[name]
    }
}
