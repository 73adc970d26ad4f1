import Testing
import TripsDomain
@testable import TripsServer
@testable import TripsStore

/// What the idempotency ledger keeps, how much, and how it is written.
@Suite struct IdempotencyLedgerTests {
    private func use(_ key: String, scope: String = "", body: Int, at: Int64 = 1_800_000_000) -> IdempotencyKeyUse {
        IdempotencyKeyUse(
            key: key, scope: scope, fingerprint: "f", at: at,
            answer: StoredAnswer(status: 201, fields: [:], content: .body(Array(repeating: 0x61, count: body))))
    }

    @Test func pastItsByteCapTheOldestKeysAreForgottenFirst() {
        var ledger = IdempotencyLedger(byteLimit: 3_000)
        for index in 0..<5 { ledger.finish(use("k-\(index)", body: 900), now: 1_800_000_000) }
        #expect(ledger.all.map(\.key) == ["k-2", "k-3", "k-4"])
        #expect(ledger.byteCount <= 3_000)
        #expect(ledger.lookup(IdempotencyLedger.Key(scope: "", key: "k-1"), fingerprint: "f") == .new)
    }

    /// A use's time read from storage can be anything: its age is told without overflow.
    @Test func aKeyUsedAtAnyTimeAgesWithoutOverflow() {
        var ledger = IdempotencyLedger()
        ledger.finish(use("far", body: 1, at: .min), now: 0)
        for index in 0..<IdempotencyLedger.minimumKept { ledger.finish(use("k-\(index)", body: 1), now: .max) }
        #expect(ledger.lookup(IdempotencyLedger.Key(scope: "", key: "far"), fingerprint: "f") == .new)
        #expect(ledger.count == IdempotencyLedger.minimumKept)
    }

    @Test func aKeyIsOneTokensOwn() {
        var ledger = IdempotencyLedger()
        ledger.finish(use("K", scope: "alice", body: 1), now: 1_800_000_000)
        #expect(ledger.lookup(IdempotencyLedger.Key(scope: "alice", key: "K"), fingerprint: "f") != .new)
        #expect(ledger.lookup(IdempotencyLedger.Key(scope: "bob", key: "K"), fingerprint: "f") == .new)
        #expect(ledger.lookup(IdempotencyLedger.Key(scope: "", key: "K"), fingerprint: "f") == .new)
    }

    /// A body over 16 KiB is kept as what the change did; a smaller one whole.
    @Test func onlySmallBodiesAreKept() {
        let small = StoredAnswer(status: 200, fields: [:], content: .body(Array(repeating: 0x61, count: StoredAnswer.maximumBodyBytes)))
        #expect(small.kept(for: .listChanged(true)) == small)
        let large = StoredAnswer(status: 200, fields: ["ETag": "\"x\""], content: .body(Array(repeating: 0x61, count: 20_000)))
        #expect(
            large.kept(for: .listChanged(true))
                == StoredAnswer(status: 200, fields: ["ETag": "\"x\""], content: .remade(.listChanged(true))))
        #expect(large.kept(for: .added([Trip.samples[0]])).content == .remade(.added([1])))
    }

    /// Records as journals wrote them before keys had scopes and large answers were left
    /// out still load, and the new forms read back as written.
    @Test func keyUsesReadInTheOldFormAndTheNew() throws {
        let old =
            #"{"revision":7,"op":"sort","by":"price","idempotency":{"key":"k","fingerprint":"1f-2","at":5,"status":200,"fields":{"ETag":"\"7\""},"body":"[]"}}"#
        let record = try JournalRecord(payload: Array(old.utf8))
        #expect(
            record.idempotency
                == IdempotencyKeyUse(
                    key: "k", fingerprint: "1f-2", at: 5,
                    answer: StoredAnswer(status: 200, fields: ["ETag": "\"7\""], content: .body(Array("[]".utf8)))))
        let outcomes: [KeptOutcome] = [.trip(3), .added([7, 8]), .addedFavorites([2]), .listChanged(false), .nothing]
        for outcome in outcomes {
            var use = use("k", scope: "alice", body: 0)
            use.answer.content = .remade(outcome)
            let written = JournalRecord(revision: 7, change: .sort(.price), idempotency: use)
            #expect(try JournalRecord(payload: written.payload) == written)
        }
    }
}
