import Foundation
import Synchronization
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsServer
@testable import TripsStore

/// The Trips API over an in-memory store (or a given one), and a way to talk to it.
///
/// Two modes, as Hummingbird's tests have: `.router` hands each request, parsed by the
/// server's own parser, straight to `TripsAPI.handle` and writes the answer as a connection
/// would (deferred answers complete through a recording responder), for the bulk of the
/// API's rules; `.live` runs a real server on an ephemeral port and talks over sockets, once
/// `AsyncLimit.liveServers` lets it start.
final class APIServer: Sendable {
    enum Mode: Sendable { case router, live }

    let store: any TripStoring
    private let api: TripsAPI
    private let server: HTTPServer?
    /// Undoes what `init(on:)` set up beyond the store (a database of its own): once, at
    /// `stop()` or when the test lets go of the server.
    private let cleanUp: (@Sendable () -> Void)?
    private let isStopped = Atomic(false)

    /// The API over a store of `kind`, for tests that hold for every store: in memory, or in
    /// a PostgreSQL database of its own until `stop()`. `configuration` is the store's.
    convenience init(
        on kind: TestStore, samples: Bool = true, configuration: StorageConfiguration = StorageConfiguration(), mode: Mode = .router,
        clock: any SchedulingClock = SystemClock(), maxSubscribers: Int = 10_000,
        maxReplayBytes: Int = HTTPStreamBacklog.defaultCapacity, maxPhotoBytes: Int = TripsAPI.defaultMaxPhotoBytes,
        access: AccessPolicy? = nil,
        cors: CORSPolicy = CORSPolicy(origins: []), hosts: HostAllowList = .loopback,
        configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) async throws {
        let (store, cleanUp) = try await kind.make(samples: samples, configuration: configuration)
        try await self.init(
            store: store, mode: mode, clock: clock, maxSubscribers: maxSubscribers, maxReplayBytes: maxReplayBytes,
            maxPhotoBytes: maxPhotoBytes, access: access, cors: cors, hosts: hosts, configure: configure, cleanUp: cleanUp)
    }

    convenience init(
        samples: Bool = true, mode: Mode = .router, clock: any SchedulingClock = SystemClock(), maxSubscribers: Int = 10_000,
        access: AccessPolicy? = nil, cors: CORSPolicy = CORSPolicy(origins: []), hosts: HostAllowList = .loopback,
        requiresIfMatch: Bool = false, rateLimit: RateLimitOptions = RateLimitOptions(),
        compressedOnTheLoop: Int = TripsAPI.defaultCompressedOnTheLoop, configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) async throws {
        try await self.init(
            store: MemoryTripStore(seedSamples: samples), mode: mode, clock: clock, maxSubscribers: maxSubscribers,
            access: access, cors: cors, hosts: hosts, requiresIfMatch: requiresIfMatch, rateLimit: rateLimit,
            compressedOnTheLoop: compressedOnTheLoop, configure: configure)
    }

    init(
        store: any TripStoring, mode: Mode = .router, clock: any SchedulingClock = SystemClock(), maxSubscribers: Int = 10_000,
        maxReplayBytes: Int = HTTPStreamBacklog.defaultCapacity, maxPhotoBytes: Int = TripsAPI.defaultMaxPhotoBytes,
        access: AccessPolicy? = nil,
        cors: CORSPolicy = CORSPolicy(origins: []), hosts: HostAllowList = .loopback, requiresIfMatch: Bool = false,
        rateLimit: RateLimitOptions = RateLimitOptions(), compressedOnTheLoop: Int = TripsAPI.defaultCompressedOnTheLoop,
        configure: (inout HTTPServerConfiguration) -> Void = { _ in }, cleanUp: (@Sendable () -> Void)? = nil
    ) async throws {
        self.store = store
        self.cleanUp = cleanUp
        api = TripsAPI(
            store: store, access: access, cors: cors, hosts: hosts, maxSubscribers: maxSubscribers, maxReplayBytes: maxReplayBytes,
            maxPhotoBytes: maxPhotoBytes, requiresIfMatch: requiresIfMatch, rateLimit: rateLimit,
            compressedOnTheLoop: compressedOnTheLoop, clock: clock)
        guard mode == .live else {
            server = nil
            return
        }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.eventLoopCount = 1
        configuration.engine = .underTest
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, handler: api, clock: clock, streams: api.feed.hub, metrics: api.serverMetrics)
        await AsyncLimit.liveServers.take()
        do {
            try server.start()
        } catch {
            AsyncLimit.liveServers.giveBack()
            throw error
        }
        self.server = server
    }

    /// Where this server compresses large answers: a test suspends it to hold them back.
    var heavyWork: DispatchQueue { api.heavyWork }

    /// Sends one request and reads the answer: on a new connection in `.live` mode, in memory
    /// in `.router` mode.
    func request(
        _ method: String, _ target: String, headers: [String: String] = [:], body: String? = nil, binaryBody: [UInt8]? = nil
    ) async throws -> TestResponse {
        let request = TestRequest(method: method, target: target, headers: headers, body: body, closes: true, binaryBody: binaryBody)
        guard let server else { return try await handleInMemory(request) }
        let port = server.port
        return try await onOwnThread { try TestClient(port: port).exchange(request) }
    }

    /// The response value `TripsAPI.handle` gives `request`, deferred or not, and what it
    /// told the connection of the request. The request's id is its own `X-Request-ID`, as a
    /// connection would echo it; without one it has none.
    func handleRaw(_ request: TestRequest) async throws -> (response: HTTPResponse, context: RequestContext) {
        let parsed = try request.parsed
        var context = RequestContext()
        context.requestID = RequestID(clientValue: parsed.headerFields[.xRequestID]).map { IssuedRequestID(id: $0, prefix: []) }
        switch api.handle(parsed, context: &context) {
        case .now(let immediate):
            return (immediate, context)
        case .later(let start):
            let sink = AnswerSink()
            start(HTTPResponder(sink: sink, connection: ConnectionID(descriptor: 0, serial: 0), requestID: context.requestID))
            await withCheckedContinuation { continuation in sink.resume(continuation) }
            return (sink.response, context)
        case .stream:
            throw TestFailure("a stream needs a live server: APIServer(mode: .live)")
        }
    }

    /// The request through `TripsAPI.handle`, its answer serialized as a connection writes it.
    private func handleInMemory(_ request: TestRequest) async throws -> TestResponse {
        let parsed = try request.parsed
        let (response, _) = try await handleRaw(request)
        var bytes: [UInt8] = []
        response.serialize(
            into: &bytes, omitContent: parsed.method == .head, connection: .close,
            dates: DateCache(epochSeconds: 784_111_777))
        guard let (parsedResponse, _) = try TestResponse.parse(bytes, head: parsed.method == .head) else {
            throw TestFailure("an incomplete response: \(String(decoding: bytes, as: UTF8.self))")
        }
        return parsedResponse
    }

    /// The same request with a JSON body.
    func json(_ method: String, _ target: String, _ body: String, headers: [String: String] = [:]) async throws -> TestResponse {
        var headers = headers
        headers["Content-Type"] = headers["Content-Type"] ?? "application/json"
        return try await request(method, target, headers: headers, body: body)
    }

    /// The live server's port.
    var port: Int { server?.port ?? 0 }

    /// How many change streams are open.
    var streamCount: Int { api.feed.hub.streamCount }

    /// The replay bytes streams hold that their clients have not been seen to take.
    var replayBytesHeld: Int { api.feed.hub.backlog.reservedBytes }

    /// The stored order of ids.
    var order: [Int] { store.list.trips.map(\.id) }

    /// Answers every waiting long poll, as `trips-server` does on SIGTERM.
    func endLongPolls() { api.feed.endLongPolls() }

    /// Starts a graceful shutdown of a live server, which gives its place among the live
    /// servers back once its loop has finished, on its own. Synchronous, for `defer`; a test
    /// that lets go of the server without it stops it all the same.
    func stop() {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let server {
            server.beginShutdown()
            Task {
                await server.stopped()
                AsyncLimit.liveServers.giveBack()
            }
        }
        cleanUp?()
    }

    /// Stops a live server and returns once its loops have stopped and its port is free
    /// again (a restart binds it anew).
    func stopAndWait() async {
        stop()
        await server?.stopped()
    }

    deinit { stop() }
}

/// Where an API test keeps its trips: tests of rules that hold for every store run on each.
enum TestStore: String, Sendable, CustomTestStringConvertible {
    case memory, postgres

    /// Memory always; PostgreSQL when `scripts/lib/postgres.sh` started a cluster for the tests.
    static var all: [TestStore] {
        LiveDatabase.isConfigured(LiveDatabase.socketURL) ? [.memory, .postgres] : [.memory]
    }

    var testDescription: String { rawValue }

    /// A new store, and what to do once the test is done with it.
    func make(samples: Bool, configuration: StorageConfiguration = StorageConfiguration()) async throws -> (
        any TripStoring, (@Sendable () -> Void)?
    ) {
        switch self {
        case .memory:
            return (MemoryTripStore(seedSamples: samples, configuration: configuration), nil)
        case .postgres:
            let database = try await APITestDatabases.shared.take()
            do {
                let store = try await onOwnThread {
                    try PostgresTripStore(connection: database.configuration, seedSamples: samples, configuration: configuration)
                }
                return (store, { APITestDatabases.shared.giveBack(database, after: store.close) })
            } catch {
                APITestDatabases.shared.giveBack(database) {}
                throw error
            }
        }
    }

    /// Runs `body` with what opens a store of this kind on the same trips, again after each
    /// close, as a restart does: for `.memory` the journal store on a data folder of its own,
    /// for `.postgres` a database of its own. Once `body` returns, the folder is removed and
    /// the database emptied for another test; `body` closes the stores it opened.
    func withReopenableStore<T>(samples: Bool, _ body: (_ open: () throws -> any TripStoring) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            return try await withStorageFolder { folder in
                try await body { try TripStore.open(folder, samples: samples) }
            }
        case .postgres:
            let database = try await APITestDatabases.shared.take()
            defer { APITestDatabases.shared.giveBack(database) {} }
            return try await body { try PostgresTripStore(connection: database.configuration, seedSamples: samples) }
        }
    }
}

/// Completes a deferred answer into a test's continuation, once. The answer itself is handed
/// over under an `NSLock` (a pthread mutex) and taken under it once the test resumes: the
/// thread sanitizer sees that lock order the threads, where a continuation's resumption alone
/// it does not, and would take the answer's writes on the answering thread for a race.
private final class AnswerSink: HTTPResponseSink, @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var answer: HTTPResponse?

    /// The answer, once the continuation given to `resume(_:)` has resumed.
    var response: HTTPResponse {
        lock.withLock { answer ?? HTTPResponse(status: .internalServerError) }
    }

    /// Resumes `continuation` when the answer comes (at once if it came already).
    func resume(_ continuation: CheckedContinuation<Void, Never>) {
        let answered = lock.withLock {
            self.continuation = continuation
            return answer != nil
        }
        if answered { deliverPending() }
    }

    func deliver(_ response: HTTPResponse, to connection: ConnectionID) {
        lock.withLock { if answer == nil { answer = response } }
        deliverPending()
    }

    private func deliverPending() {
        let pending = lock.withLock {
            defer { continuation = nil }
            return answer == nil ? nil : continuation
        }
        pending?.resume()
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

    /// The target of the `Link` element with this `rel`, as sent (the elements are split at
    /// `, `: a URL holds no space).
    func link(_ rel: String) -> String? {
        field("Link")?.components(separatedBy: ", ").first { $0.hasSuffix("; rel=\"\(rel)\"") }
            .map { String($0.dropFirst().prefix { $0 != ">" }) }
    }

    /// A member of a JSON object body.
    func member(_ name: String) throws -> JSONValue? {
        guard case .object(let members) = try json else { throw TestFailure("not an object: \(text)") }
        return members[name]
    }
}

extension AccessPolicy {
    /// The policy with sessions of its own, on `clock`.
    init(
        tokens: AccessTokens, isPrivate: Bool, clock: any ServerClock = SystemClock(), sessionCapacity: Int = 10_000,
        sessionCapacityPerToken: Int = BrowserSessions.defaultCapacityPerToken
    ) {
        // The kernel's random source does not fail on a machine that runs the tests.
        let sessions = try! BrowserSessions(capacity: sessionCapacity, capacityPerToken: sessionCapacityPerToken, clock: clock)
        self.init(tokens: tokens, isPrivate: isPrivate, sessions: sessions)
    }
}
