import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

/// `GET /trips/changes` by long polling (in memory) and as server-sent events (live).
@Suite struct APIChangeFeedTests {
    private func changeEvents(_ response: TestResponse) throws -> [String] {
        guard case .array(let changes)? = try response.member("changes") else { throw TestFailure("no changes: \(response.text)") }
        return changes.map { change in
            guard case .object(let members) = change, case .string(let name)? = members["event"] else { return "?" }
            return name
        }
    }

    @Test(arguments: TestStore.all) func everyReadAndChangeSaysItsRevision(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        #expect(try await api.request("GET", "/trips").field("Trips-Revision") == "0")
        let favorite = try await api.request("PUT", "/favorites/2")
        #expect(favorite.field("Trips-Revision") == "1")
        #expect(try await api.request("GET", "/favorites").field("Trips-Revision") == "1")
        #expect(try await api.request("GET", "/trips/2").field("Trips-Revision") == "1")
        #expect(try await api.request("DELETE", "/trips/6").field("Trips-Revision") == "2")
        #expect(try await api.request("GET", "/trips/3").field("Trips-Revision") == "0")  // unchanged since
    }

    @Test(arguments: TestStore.all) func aLongPollAnswersEveryChangeAfterARevision(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        _ = try await api.request("PUT", "/favorites/2")
        _ = try await api.json("POST", "/trips/reorder", #"{"sources":[2],"destination":"end"}"#)
        let all = try await api.request("GET", "/trips/changes?since=0")
        #expect(all.status == 200)
        #expect(all.field("Trips-Revision") == "2")
        #expect(try changeEvents(all) == ["favorites", "reordered"])
        #expect(all.text.contains(#"{"event":"favorites","revision":1,"added":[2],"removed":[]}"#))
        #expect(try changeEvents(try await api.request("GET", "/trips/changes?since=1")) == ["reordered"])
        #expect(try changeEvents(try await api.request("GET", "/trips/changes?since=2")) == [])
        #expect(try changeEvents(try await api.request("GET", "/trips/changes")) == [])
    }

    @Test(arguments: TestStore.all) func aRevisionTheHistoryNoLongerHoldsOrAheadOfTheListIsGone(store: TestStore) async throws {
        let api = try await APIServer(on: store, configuration: StorageConfiguration(historyCapacity: 2))
        defer { api.stop() }
        for id in [1, 2, 3] { _ = try await api.request("PUT", "/favorites/\(id + 1)") }  // revisions 1-3
        let tooOld = try await api.request("GET", "/trips/changes?since=0")
        #expect(tooOld.status == 410)
        #expect(try tooOld.member("revision") == .number("3"))
        #expect(tooOld.field("Trips-Revision") == "3")
        #expect(try changeEvents(try await api.request("GET", "/trips/changes?since=1")) == ["favorites", "favorites"])
        #expect(try await api.request("GET", "/trips/changes?since=4").status == 410)
    }

    @Test(arguments: [
        "/trips/changes?since=-1", "/trips/changes?since=x", "/trips/changes?wait=61", "/trips/changes?after=1",
        "/trips/changes?since=1&since=2",
    ])
    func badParametersAre400(target: String) async throws {
        #expect(try await APIServer().request("GET", target).status == 400)
    }

    @Test(arguments: TestStore.all) func aLongPollWaitsForTheNextChangeOrForItsTime(store: TestStore) async throws {
        let clock = ManualClock()
        let api = try await APIServer(on: store, clock: clock)
        defer { api.stop() }
        let waiting = Task { try await api.request("GET", "/trips/changes?since=0&wait=30") }
        while clock.pendingCount == 0 { await Task.yield() }  // registered: its timeout is scheduled
        _ = try await api.request("PUT", "/favorites/3")
        let answered = try await waiting.value
        #expect(try changeEvents(answered) == ["favorites"])

        let idle = Task { try await api.request("GET", "/trips/changes?since=1&wait=5") }
        while clock.pendingCount < 2 { await Task.yield() }
        clock.advance(by: .seconds(6))
        let empty = try await idle.value
        #expect(empty.status == 200)
        #expect(try changeEvents(empty) == [])
        #expect(empty.field("Trips-Revision") == "1")
    }

    @Test(arguments: TestStore.all) func shutdownAnswersWaitingLongPollsAtOnce(store: TestStore) async throws {
        let clock = ManualClock()
        let api = try await APIServer(on: store, clock: clock)
        defer { api.stop() }
        let waiting = Task { try await api.request("GET", "/trips/changes?wait=60") }
        while clock.pendingCount == 0 { await Task.yield() }
        api.endLongPolls()
        let answer = try await waiting.value
        #expect(answer.status == 200)
        #expect(try changeEvents(answer) == [])
    }

    // MARK: - Server-sent events, over a socket

    private static let streamRequest = "GET /trips/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"

    @Test(arguments: TestStore.all) func aStreamGetsEveryChangeMadeOnOtherConnections(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live)
        defer { api.stop() }
        let stream = try await onOwnThread { () throws -> UncheckedBox<TestClient> in
            let client = try TestClient(port: api.port)
            try client.send(Self.streamRequest + "\r\n")
            let head = try client.readUntil("\r\n\r\n")
            #expect(head.contains("Content-Type: text/event-stream"))
            #expect(head.contains("Transfer-Encoding: chunked"))
            #expect(try client.readUntil("retry: 2000\n\n").hasSuffix("retry: 2000\n\n"))
            return UncheckedBox(client)
        }
        _ = try await api.request("PUT", "/favorites/2")
        _ = try await api.request("DELETE", "/trips/6")
        let events = try await onOwnThread {
            // A heartbeat may come first on a slow machine (this server's clock is the real one).
            func nextEvent() throws -> String {
                while true {
                    let block = try stream.value.readUntil("\n\n")
                    if !block.hasSuffix(": keep-alive\n\n") { return block }
                }
            }
            return [try nextEvent(), try nextEvent()]
        }
        #expect(events[0].hasSuffix("id: 1\nevent: favorites\ndata: {\"revision\":1,\"added\":[2],\"removed\":[]}\n\n"))
        #expect(events[1].hasSuffix("id: 2\nevent: deleted\ndata: {\"revision\":2,\"ids\":[6]}\n\n"))
    }

    @Test(arguments: TestStore.all) func aStreamResumesFromLastEventIDOrSaysReset(store: TestStore) async throws {
        let api = try await APIServer(on: store, configuration: StorageConfiguration(historyCapacity: 2), mode: .live)
        defer { api.stop() }
        for id in [2, 3, 4] { _ = try await api.request("PUT", "/favorites/\(id)") }
        let (resumed, reset) = try await onOwnThread { () throws -> (String, String) in
            let resuming = try TestClient(port: api.port)
            try resuming.send(Self.streamRequest + "Last-Event-ID: 1\r\n\r\n")
            _ = try resuming.readUntil("retry: 2000\n\n")
            let resumed = try resuming.readUntil("id: 3\n") + resuming.readUntil("\n\n")
            let stale = try TestClient(port: api.port)
            try stale.send("GET /trips/changes?since=0 HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
            return (resumed, try stale.readUntil("event: reset\ndata: {\"revision\":3}\n\n"))
        }
        #expect(resumed.contains("id: 2\nevent: favorites"))
        #expect(!resumed.contains("id: 1\n"))
        #expect(reset.contains("id: 3\nevent: reset"))
    }

    /// An HTTP/1.0 client cannot read chunks: its stream runs until the connection closes.
    @Test(arguments: TestStore.all) func anHTTP10StreamIsNotChunked(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live)
        defer { api.stop() }
        let (head, first) = try await onOwnThread { () throws -> (String, String) in
            let client = try TestClient(port: api.port)
            try client.send("GET /trips/changes HTTP/1.0\r\nAccept: text/event-stream\r\n\r\n")
            return (try client.readUntil("\r\n\r\n"), try client.readUntil("\n\n"))
        }
        #expect(!head.contains("Transfer-Encoding"))
        #expect(head.contains("Connection: close"))
        #expect(first == "retry: 2000\n\n")
    }

    @Test(arguments: TestStore.all) func anIdleStreamGetsAHeartbeatFromTheClock(store: TestStore) async throws {
        let clock = ManualClock()
        let api = try await APIServer(on: store, mode: .live, clock: clock)
        defer { api.stop() }
        let client = try await onOwnThread { () throws -> UncheckedBox<TestClient> in
            let client = try TestClient(port: api.port)
            try client.send(Self.streamRequest + "\r\n")
            _ = try client.readUntil("retry: 2000\n\n")
            return UncheckedBox(client)
        }
        clock.advance(by: .seconds(15))
        let beat = try await onOwnThread { try client.value.readUntil(": keep-alive\n\n") }
        #expect(beat.hasSuffix(": keep-alive\n\n"))
    }

    @Test(arguments: TestStore.all) func moreStreamsThanAllowedGet503(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live, maxSubscribers: 1)
        defer { api.stop() }
        let (first, second) = try await onOwnThread { () throws -> (UncheckedBox<TestClient>, TestResponse) in
            let first = try TestClient(port: api.port)
            try first.send(Self.streamRequest + "\r\n")
            _ = try first.readUntil("retry: 2000\n\n")
            let second = try TestClient(port: api.port)
            try second.send(Self.streamRequest + "\r\n")
            return (UncheckedBox(first), try second.readResponse())
        }
        #expect(second.status == 503)
        #expect(second.field("Retry-After") == "5")
        _ = first
    }

    /// A replay is sized before it is built (one that does not fit is never made): the size
    /// must be what the frames come to.
    @Test func aFrameIsAsLongAsItsLengthSays() {
        let events = [
            ChangeEvent.reset(revision: 7), ChangeEvent(revision: 1_234_567, name: "favorites", data: Array(#"{"added":[3]}"#.utf8)),
            ChangeEvent(revision: 42, name: "updated", data: Array("{\"city\":\"Zürich\"}".utf8)),
        ]
        for event in events { #expect(ChangeFeed.frameLength(event) == ChangeFeed.frame(event).count) }
    }

    /// Replays count against one cap for all streams until their clients are seen to take
    /// them; a stream whose replay does not fit says `reset` (read the list again) and goes live.
    @Test func replaysTogetherStayUnderTheirCapAndOneThatDoesNotFitSaysReset() async throws {
        let api = try await APIServer(on: .memory, mode: .live, clock: ManualClock(), maxReplayBytes: 400)
        defer { api.stop() }
        for id in [2, 3, 4] { _ = try await api.request("PUT", "/favorites/\(id)") }  // ~210 bytes of replay
        let since0 = "GET /trips/changes?since=0 HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
        let port = api.port
        let (first, second) = try await onOwnThread { () throws -> (UncheckedBox<TestClient>, String) in
            let first = try TestClient(port: port)
            try first.send(since0)
            _ = try first.readUntil("id: 3\nevent: favorites\n")
            let second = try TestClient(port: port)
            try second.send(since0)
            return (UncheckedBox(first), try second.readUntil("event: reset\ndata: {\"revision\":3}\n\n"))
        }
        #expect(!second.contains("id: 1\n"))
        #expect(api.replayBytesHeld > 200)
        // The next change reaches the first stream with nothing left unsent: it took its replay.
        _ = try await api.request("DELETE", "/favorites/1")
        _ = try await onOwnThread { try first.value.readUntil("id: 4\n") }
        #expect(api.replayBytesHeld == 0)
        let third = try await onOwnThread { () throws -> String in
            let third = try TestClient(port: port)
            try third.send(since0)
            return try third.readUntil("id: 4\nevent: favorites\n")
        }
        #expect(third.contains("id: 1\nevent: favorites"))
        #expect(!third.contains("event: reset"))
    }

    @Test(arguments: TestStore.all) func shutdownEndsEveryStreamCleanly(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live)
        let client = try await onOwnThread { () throws -> UncheckedBox<TestClient> in
            let client = try TestClient(port: api.port)
            try client.send(Self.streamRequest + "\r\n")
            _ = try client.readUntil("retry: 2000\n\n")
            return UncheckedBox(client)
        }
        api.stop()
        let rest = try await onOwnThread { try client.value.readToEnd() }
        #expect(rest.hasSuffix("0\r\n\r\n"))
    }

    /// A client that stops reading is cut once a megabyte (here 64 KiB) waits for it; a
    /// client that reads gets every event all the same.
    @Test(.tags(.slow), arguments: TestStore.all)
    func aSubscriberThatStopsReadingIsCutWithoutDelayingOthers(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live) { $0.limits.maxStreamBacklog = 64 * 1024 }
        defer { api.stop() }
        let (slow, fast) = try await onOwnThread { () throws -> (UncheckedBox<TestClient>, UncheckedBox<TestClient>) in
            let slow = try TestClient(port: api.port, receiveBuffer: 4096)
            try slow.send(Self.streamRequest + "\r\n")
            _ = try slow.readUntil("retry: 2000\n\n")
            let fast = try TestClient(port: api.port)
            try fast.send(Self.streamRequest + "\r\n")
            _ = try fast.readUntil("retry: 2000\n\n")
            return (UncheckedBox(slow), UncheckedBox(fast))
        }
        // Changes of 10 KB each, the fast client taking each one before the next is made, until
        // the slow one (which takes none) is cut: the kernel buffers a few MB for it first.
        let notes = String(repeating: "n", count: 10_000)
        let trips = api.store
        let (received, streamsLeft) = try await onOwnThread { () throws -> (Int, Int) in
            var received = 0
            while api.streamCount == 2 && received < 3_000 {
                let draft = TripDraft(
                    city: "C\(received)", country: "X", nights: 1, price: 1, start: Date(timeIntervalSince1970: 0), notes: notes)
                trips.mutate({ _ in .add(draft) }, returningList: false, idempotency: nil) { _ in }  // durable once its event arrives
                _ = try fast.value.readUntil("event: created")
                received += 1
            }
            return (received, api.streamCount)
        }
        #expect(streamsLeft == 1)
        #expect(received < 3_000)
        let rest = try await onOwnThread { try slow.value.readToEnd() }  // what the kernel held, then the close
        #expect(rest.contains("event: created"))
    }

    /// Revisions and the history survive a restart: a client resumes where it was.
    @Test(arguments: TestStore.all) func aStreamResumesAcrossARestart(store: TestStore) async throws {
        try await store.withReopenableStore(samples: true) { open in
            let first = try open()
            let api = try await APIServer(store: first, mode: .live)
            for id in [2, 3, 4] { _ = try await api.request("PUT", "/favorites/\(id)") }
            api.stop()
            first.close()

            let second = try open()
            defer { second.close() }
            let restarted = try await APIServer(store: second, mode: .live)
            defer { restarted.stop() }
            _ = try await restarted.request("DELETE", "/trips/6")  // revision 4, after the restart
            let replayed = try await onOwnThread { () throws -> String in
                let client = try TestClient(port: restarted.port)
                try client.send(Self.streamRequest + "Last-Event-ID: 1\r\n\r\n")
                return try client.readUntil("id: 4\nevent: deleted\ndata: {\"revision\":4,\"ids\":[6]}\n\n")
            }
            #expect(replayed.contains("id: 2\nevent: favorites\ndata: {\"revision\":2,\"added\":[3],\"removed\":[]}"))
            #expect(replayed.contains("id: 3\nevent: favorites"))
            #expect(!replayed.contains("id: 1\n"))
        }
    }

    /// The history is kept in the snapshot, so compacting the journal loses none of it.
    @Test func theHistorySurvivesCompaction() async throws {
        try await withStorageFolder { folder in
            let configuration = StorageConfiguration(compactionBytes: 1, compactionRecords: 1, growsWithSnapshot: false)
            let store = try TripStore.open(folder, samples: true, configuration: configuration)
            for id in [2, 3, 4, 6] { try await store.commit(.setFavorite(id, true)) }
            store.close()
            let reopened = try TripStore.open(folder, samples: true, configuration: configuration)
            defer { reopened.close() }
            #expect(reopened.withHistory { $0.events(after: 0)?.map(\.revision) } == [1, 2, 3, 4])
        }
    }
}
