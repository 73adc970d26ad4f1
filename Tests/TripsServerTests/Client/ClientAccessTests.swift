import Foundation
import Testing
import TripsClient
import TripsDomain

@testable import TripsServer

/// A private server (`--private --tokens FILE`): the client's token opens every call, the
/// feed too; without it, or with another, each is the typed `.unauthorized` with the problem.
@Suite struct ClientAccessTests {
    private static let token = "alice-0123456789abcdef"
    private static let access = AccessPolicy(tokens: AccessTokens([(name: "alice", token: token)]), isPrivate: true)

    @Test func theTokenOpensAPrivateServer() async throws {
        try await ClientTestServer.with(.memory, access: Self.access) { server in
            let client = TripsClient(baseURL: server.url, token: Self.token)
            let list = try await client.list()
            #expect(list.value.count == 6)
            try await client.move([1], before: nil, ifMatch: list.etag)
            let revision = list.revision ?? 0
            let event = try await within(seconds: 60) {
                var feed = client.changes(since: revision).makeAsyncIterator()
                return try await feed.next()
            }
            #expect(event == .reordered(revision: revision + 1, difference: ReorderDifference(sources: [1], destination: .end)))
        }
    }

    @Test func withoutTheTokenEveryCallIsUnauthorizedWithTheProblem() async throws {
        try await ClientTestServer.with(.memory, access: Self.access) { server in
            for token in [nil, "mallory-0123456789abcdef"] {
                let client = TripsClient(baseURL: server.url, token: token, retry: RetryPolicy { _ in })
                let calls: [@Sendable () async throws -> Void] = [
                    { _ = try await client.list() },
                    { _ = try await client.trip(2) },
                    { try await client.move([1], before: nil) },
                    {
                        var feed = client.changes().makeAsyncIterator()
                        _ = try await feed.next()
                    },
                ]
                for call in calls {
                    let error = try await within(seconds: 60) { () -> TripsClientError? in
                        do {
                            try await call()
                            return nil
                        } catch let error as TripsClientError {
                            return error
                        }
                    }
                    guard case .unauthorized(let problem)? = error else { throw TestFailure("not a 401: \(String(describing: error))") }
                    #expect(problem.status == 401 && !problem.detail.isEmpty)
                }
            }
            #expect(server.order == [1, 2, 3, 4, 5, 6])
        }
    }
}
