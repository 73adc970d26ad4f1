import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsFormats

/// A real `kill -9`: a `trips-server` child process under concurrent writes is killed,
/// restarted on the same folder, and must hold every write it acknowledged, in commit order.
///
/// Needs the `trips-server` executable next to the test bundle: `swift build --build-tests`
/// (what CI runs) builds it.
@Suite(.serialized, .tags(.live)) struct StorageCrashTests {
    /// Writes are counted, not timed: the kill comes right after this many 2xx answers.
    static let acknowledgedWritesPerRound = 150
    static let rounds = 6
    static let threads = 8

    @Test func everyAcknowledgedWriteSurvivesKillNineAndRestart() async throws {
        let executable = try tripsServerExecutable()
        let problems = try await onOwnThread { () throws -> [String] in
            try withCrashFolder { folder in
                var state = CrashListState()
                var owners: [Int: Int] = [:]
                var problems: [String] = []
                for round in 0..<Self.rounds {
                    let server = try ChildServer(executable: executable, folder: folder)
                    defer { server.stop() }
                    let port = try server.waitUntilListening()
                    let start = try fetchList(port: port)
                    if start != state { problems.append("round \(round) started from \(start), not \(state)") }

                    let logs = runWorkload(round: round, port: port, start: start, owners: owners, on: server)
                    problems += logs.flatMap { log in log.problems.map { "round \(round), thread \(log.thread): \($0)" } }
                    let ending = server.waitForExit()
                    if ending?.reason != .uncaughtSignal || ending?.status != SIGKILL {
                        problems.append("round \(round): the server was not killed by SIGKILL: \(String(describing: ending))")
                    }

                    let restarted = try ChildServer(executable: executable, folder: folder)
                    defer { restarted.stop() }
                    let recovered = try fetchList(port: try restarted.waitUntilListening())
                    let verification = CrashVerification(recovered: recovered, base: state, owners: owners, logs: logs)
                    problems += verification.problems.map { "round \(round): \($0)" }
                    state = recovered
                    owners = verification.owners
                    restarted.send(SIGTERM)
                    let stopped = restarted.waitForExit()
                    if stopped?.reason != .exit || stopped?.status != 0 {
                        problems.append(
                            "round \(round): SIGTERM did not stop the server cleanly: \(String(describing: stopped)); stderr: \(restarted.errors.text)"
                        )
                    }
                    if !problems.isEmpty { break }
                }
                return problems
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func aSecondServerOnTheSameFolderExitsAtOnceWhileTheFirstKeepsServing() async throws {
        let executable = try tripsServerExecutable()
        try await onOwnThread {
            try withCrashFolder { folder in
                let first = try ChildServer(executable: executable, folder: folder)
                defer { first.stop() }
                let port = try first.waitUntilListening()

                let second = try ChildServer(executable: executable, folder: folder)
                defer { second.stop() }
                let ending = second.waitForExit()
                _ = second.errors.waitForEnd(timeout: .seconds(5 * TestTimeout.scale))
                guard let ending else { throw TestFailure("the second server is still running on \(folder)") }
                guard ending.reason == .exit, ending.status != 0 else {
                    throw TestFailure("the second server ended with \(ending), expected a non-zero exit")
                }
                guard second.errors.text.contains(folder), second.errors.text.contains("in use") else {
                    throw TestFailure("the second server's message does not name the folder: \(second.errors.text)")
                }
                guard !second.output.text.contains("listening") else {
                    throw TestFailure("the second server said it was listening: \(second.output.text)")
                }

                let client = try TestClient(port: port)
                let created = try client.exchange(
                    "POST", "/trips", json: #"{"city":"Oslo","country":"Norway","nights":2,"price":640.5,"start":"2027-08-14"}"#)
                guard created.status == 201 else {
                    throw TestFailure("the first server stopped serving writes: \(created.status) \(created.text)")
                }
                let list = try client.exchange("GET", "/trips")
                guard list.status == 200, try list.ids.count == 1 else {
                    throw TestFailure("the first server's list: \(list.status) \(list.text)")
                }
            }
        }
    }

    @Test func theCrashCheckNoticesLostReorderedAndStaleWrites() {
        // Thread 0 created 1 and 2, moved 2 before 1 and made 1 a favorite; thread 1 created
        // 3 and 4 and had a delete of 3 in flight when the server died.
        func trip(_ id: Int, _ city: String) -> [String: JSONValue] {
            [
                "id": .number("\(id)"), "city": .string(city), "country": .string("Crashland"), "nights": .number("2"),
                "isFavorite": .bool(false),
            ]
        }
        var zero = CrashWorkerLog(thread: 0)
        zero.acknowledged = [
            (.create(id: 1, trip: trip(1, "A")), 1), (.create(id: 2, trip: trip(2, "B")), 3), (.move(sources: [2], before: 1), 4),
            (.favorites([1], true), 5),
        ]
        var one = CrashWorkerLog(thread: 1)
        one.acknowledged = [(.create(id: 3, trip: trip(3, "C")), 2), (.create(id: 4, trip: trip(4, "D")), 6)]
        one.inFlight = .change(.delete(3))
        let logs = [zero, one]
        func problems(_ recovered: CrashListState) -> [String] {
            CrashVerification(recovered: recovered, base: CrashListState(), owners: [:], logs: logs).problems
        }

        var good = CrashListState()
        for change in [
            zero.acknowledged[0], one.acknowledged[0], zero.acknowledged[1], zero.acknowledged[2], zero.acknowledged[3],
            one.acknowledged[1],
        ] {
            good.apply(change.change)
        }
        good.revision = 6
        #expect(good.order == [2, 1, 3, 4])
        #expect(problems(good) == [])
        var withInFlight = good
        withInFlight.apply(.delete(3))
        withInFlight.revision = 7
        #expect(problems(withInFlight) == [])

        var broken: [String: CrashListState] = [:]
        broken["lost trip"] = good
        broken["lost trip"]!.apply(.delete(2))
        broken["lost favorite"] = good
        broken["lost favorite"]!.apply(.favorites([1], false))
        broken["lost move"] = good
        broken["lost move"]!.order = [1, 2, 3, 4]
        broken["order across threads"] = good
        broken["order across threads"]!.order = [2, 3, 4, 1]
        broken["stale revision"] = good
        broken["stale revision"]!.revision = 5
        broken["unknown trip"] = good
        broken["unknown trip"]!.apply(.create(id: 9, trip: trip(9, "Z")))
        for (name, recovered) in broken {
            #expect(!problems(recovered).isEmpty, "\(name)")
        }
    }
}

/// A fresh data folder for a child server, removed afterwards.
private func withCrashFolder<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("trips-crash-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// `GET /trips` as the model's state, with the revision from the list's tag.
private func fetchList(port: Int) throws -> CrashListState {
    let response = try TestClient(port: port).exchange("GET", "/trips")
    guard response.status == 200, let revision = response.revision, case .array(let items) = try response.json else {
        throw TestFailure("GET /trips answered \(response.status) \(response.fields) \(response.text)")
    }
    var state = CrashListState(revision: revision)
    for item in items {
        guard case .object(let trip) = item, case .number(let number)? = trip["id"], let id = Int(number) else {
            throw TestFailure("not a trip: \(item)")
        }
        state.order.append(id)
        state.trips[id] = trip
    }
    return state
}

/// Counts acknowledged writes across the workers and kills the server at the limit.
private final class KillSwitch: Sendable {
    let pid: pid_t
    let limit: Int
    private let acknowledged = Atomic(0)
    private let fired = Atomic(false)

    init(pid: pid_t, limit: Int) {
        self.pid = pid
        self.limit = limit
    }

    var hasFired: Bool { fired.load(ordering: .sequentiallyConsistent) }

    /// Counts one 2xx; the one that reaches the limit sends SIGKILL while the others' requests are in flight.
    func acknowledge() {
        if acknowledged.add(1, ordering: .sequentiallyConsistent).newValue == limit { fire() }
    }

    func fire() {
        guard !fired.exchange(true, ordering: .sequentiallyConsistent) else { return }
        kill(pid, SIGKILL)
    }
}

/// Runs `StorageCrashTests.threads` writers, each on its own thread and keep-alive
/// connection, until the kill; returns what each was told.
private func runWorkload(round: Int, port: Int, start: CrashListState, owners: [Int: Int], on server: ChildServer) -> [CrashWorkerLog] {
    let killSwitch = KillSwitch(pid: server.pid, limit: StorageCrashTests.acknowledgedWritesPerRound)
    let logs = Mutex<[CrashWorkerLog]>([])
    let finished = DispatchGroup()
    // Every worker connects before any writes, so none can miss the round.
    let connected = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    for thread in 0..<StorageCrashTests.threads {
        let mine = Set(owners.filter { $0.value == thread }.keys)
        let own = CrashListState(
            order: start.order.filter(mine.contains), trips: start.trips.filter { mine.contains($0.key) }, revision: start.revision)
        finished.enter()
        let worker = Thread {
            var writer = CrashWriter(round: round, thread: thread, own: own)
            let log = writer.run(port: port, killSwitch: killSwitch, connected: connected, go: go)
            logs.withLock { $0.append(log) }
            finished.leave()
        }
        worker.name = "trips-crash-writer-\(thread)"
        worker.start()
    }
    for _ in 0..<StorageCrashTests.threads { connected.wait() }
    for _ in 0..<StorageCrashTests.threads { go.signal() }
    // Every worker stops at its first failed request; a worker that fails early must not
    // leave the others writing forever, so the kill also comes when they all stopped.
    if finished.wait(timeout: .now() + .seconds(60 * TestTimeout.scale)) == .timedOut {
        killSwitch.fire()
        _ = finished.wait(timeout: .now() + .seconds(10 * TestTimeout.scale))
    }
    var result = logs.withLock { $0 }.sorted { $0.thread < $1.thread }
    if !killSwitch.hasFired {
        killSwitch.fire()
        result[0].problems.append("every writer stopped before \(killSwitch.limit) acknowledged writes")
    }
    return result
}

/// One writer: creates, reorders, drops on favorites, toggles favorites and deletes, only
/// ever naming trips it created, and never asking for a change that changes nothing.
private struct CrashWriter {
    let round: Int
    let thread: Int
    /// This thread's trips as its acknowledged changes left them.
    var own: CrashListState
    var random: SplitMix64
    var log: CrashWorkerLog
    var sequence = 0

    init(round: Int, thread: Int, own: CrashListState) {
        self.round = round
        self.thread = thread
        self.own = own
        random = SplitMix64(seed: UInt64(round * 1000 + thread))
        log = CrashWorkerLog(thread: thread)
    }

    mutating func run(port: Int, killSwitch: KillSwitch, connected: DispatchSemaphore, go: DispatchSemaphore) -> CrashWorkerLog {
        let client: TestClient
        do {
            client = try TestClient(port: port)
            connected.signal()
        } catch {
            connected.signal()
            log.problems.append("cannot connect: \(error)")
            return log
        }
        go.wait()
        // A bound so a server that never dies cannot keep the test going.
        for _ in 0..<10_000 {
            let request = nextRequest()
            let response: TestResponse
            do {
                response = try client.exchange(request.method, request.target, json: request.body)
            } catch {
                log.inFlight = request.change
                if !killSwitch.hasFired { log.problems.append("\(request) failed before the kill: \(error)") }
                return log
            }
            do {
                let acknowledged = try resolve(request, response)
                log.acknowledged.append(acknowledged)
                own.apply(acknowledged.change)
            } catch {
                log.problems.append("\(request): \(error)")
                return log
            }
            killSwitch.acknowledge()
        }
        log.problems.append("the server was never killed")
        return log
    }

    /// Picks the next write from this thread's trips.
    mutating func nextRequest() -> CrashRequest {
        sequence += 1
        let ids = own.order
        let favorites = ids.filter { own.trips[$0]?["isFavorite"] == .bool(true) }
        let plain = ids.filter { !favorites.contains($0) }
        let roll = ids.count < 2 ? 0 : random.next(below: 100)
        switch roll {
        case 0..<30:
            let city = "C\(round)-\(thread)-\(sequence)"
            let nights = 1 + random.next(below: 30)
            let price = "\(100 + random.next(below: 900)).\(random.next(below: 100))"
            let body =
                #"{"city":"\#(city)","country":"Crashland","nights":\#(nights),"price":\#(price),"start":"2027-0\#(1 + random.next(below: 9))-1\#(random.next(below: 10))","notes":"round \#(round) \"crash\" ✓"}"#
            return CrashRequest(
                method: "POST", target: "/trips", body: body, change: .create(city: city, country: "Crashland", nights: nights))
        case 30..<55:
            let sources = Array(ids.shuffled(using: &random).prefix(1 + random.next(below: min(3, ids.count - 1))))
            let targets = ids.filter { !sources.contains($0) }
            var before: Int? = random.next(below: 3) == 0 ? nil : targets[random.next(below: targets.count)]
            var moved = sources
            if CrashListState.moving(moved, before: before, in: ids) == ids {
                moved = [ids[0]]  // moving the first trip to the end always changes the order
                before = nil
            }
            let destination = before.map { #"{"before":\#($0)}"# } ?? #""end""#
            let body = #"{"sources":[\#(moved.map(String.init).joined(separator: ","))],"destination":\#(destination)}"#
            return CrashRequest(
                method: "POST", target: "/trips/reorder", body: body, change: .change(.move(sources: moved, before: before)))
        case 55..<67 where !plain.isEmpty:
            let dropped = Array(plain.shuffled(using: &random).prefix(1 + random.next(below: 2)))
            let body = "[" + dropped.map(String.init).joined(separator: ",") + "]"
            return CrashRequest(method: "POST", target: "/favorites", body: body, change: .change(.favorites(dropped, true)))
        case 55..<85:
            let id = ids[random.next(below: ids.count)]
            let isFavorite = favorites.contains(id)
            return CrashRequest(
                method: isFavorite ? "DELETE" : "PUT", target: "/favorites/\(id)", body: nil, change: .change(.favorites([id], !isFavorite))
            )
        default:
            let id = ids[random.next(below: ids.count)]
            return CrashRequest(method: "DELETE", target: "/trips/\(id)", body: nil, change: .change(.delete(id)))
        }
    }

    /// What an answered request did, and the revision the answer names.
    func resolve(_ request: CrashRequest, _ response: TestResponse) throws -> (change: CrashChange, revision: UInt64?) {
        guard (200..<300).contains(response.status) else { throw TestFailure("answered \(response.status): \(response.text)") }
        switch request.change {
        case .create(let city, _, _):
            guard response.status == 201, let revision = response.revision, case .object(let trip) = try response.json,
                trip["city"] == .string(city), case .number(let number)? = trip["id"], let id = Int(number)
            else { throw TestFailure("an unexpected answer to a create: \(response.status) \(response.fields) \(response.text)") }
            return (.create(id: id, trip: trip), revision)
        case .change(.delete(let id)):
            guard response.status == 204 else { throw TestFailure("deleting \(id) answered \(response.status)") }
            return (.delete(id), nil)
        case .change(.favorites(let ids, let isFavorite)) where request.target == "/favorites":
            // A drop answers which trips became favorites: all of them, since none was one.
            guard let revision = response.revision,
                try response.member("added") == .array(own.order.filter(ids.contains).map { .number(String($0)) })
            else { throw TestFailure("an unexpected answer to a drop of \(ids): \(response.fields) \(response.text)") }
            return (.favorites(ids, isFavorite), revision)
        case .change(let change):
            guard let revision = response.revision else { throw TestFailure("no revision in \(response.fields)") }
            return (change, revision)
        }
    }
}

/// One write as sent, and what it asks of the list.
private struct CrashRequest: CustomStringConvertible {
    var method: String
    var target: String
    var body: String?
    var change: CrashInFlight

    var description: String { "\(method) \(target)" + (body.map { " " + $0 } ?? "") }
}
