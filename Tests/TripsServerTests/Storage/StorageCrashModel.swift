import TripsDomain
@testable import TripsFormats

/// The list as the crash test believes it is: ids in order, each trip as the server wrote it.
struct CrashListState: Sendable, Equatable {
    var order: [Int] = []
    var trips: [Int: [String: JSONValue]] = [:]
    var revision: UInt64 = 0

    /// The trips among `ids`, in list order, for comparisons.
    func entries(among ids: Set<Int>) -> [CrashTripEntry] {
        order.filter(ids.contains).map { CrashTripEntry(id: $0, json: trips[$0] ?? [:]) }
    }

    mutating func apply(_ change: CrashChange) {
        switch change {
        case .create(let id, let trip):
            order.append(id)
            trips[id] = trip
        case .delete(let id):
            order.removeAll { $0 == id }
            trips[id] = nil
        case .move(let sources, let before):
            order = Self.moving(sources, before: before, in: order)
        case .favorites(let ids, let isFavorite):
            for id in ids { trips[id]?["isFavorite"] = .bool(isFavorite) }
        }
    }

    /// The README's reorder rule for a destination that is not itself moving: the moved
    /// trips keep their relative order and land just before `before`, or at the end.
    ///
    ///     moving([4, 1], before: 2, in: [1, 2, 3, 4])  // [1, 4, 2, 3]
    static func moving(_ sources: [Int], before: Int?, in order: [Int]) -> [Int] {
        let moving = Set(sources)
        let block = order.filter(moving.contains)
        var rest = order.filter { !moving.contains($0) }
        let insertion = before.flatMap { rest.firstIndex(of: $0) } ?? rest.endIndex
        rest.insert(contentsOf: block, at: insertion)
        return rest
    }
}

/// One trip in a comparison.
struct CrashTripEntry: Sendable, Equatable, CustomStringConvertible {
    var id: Int
    var json: [String: JSONValue]

    var description: String {
        var text = "\(id)"
        if case .string(let city)? = json["city"] { text += " \(city)" }
        if json["isFavorite"] == .bool(true) { text += "★" }
        return text
    }
}

/// A change the test asked for, resolved to what it does to the list.
///
/// Each worker thread only ever names trips it created itself (sources, destinations,
/// favorites, deletes), which is what makes the outcome checkable exactly: the relative order
/// and state of one thread's trips depend on that thread's own changes alone, and a delete
/// gives the same final list wherever it lands between its thread's neighbouring changes.
enum CrashChange: Sendable, Equatable {
    case create(id: Int, trip: [String: JSONValue])
    case delete(Int)
    /// `before == nil` moves to the end.
    case move(sources: [Int], before: Int?)
    case favorites([Int], Bool)
}

/// A request that was sent but never answered: the kill may have come before or after the change.
enum CrashInFlight: Sendable, Equatable {
    /// The id is unknown: the trip is recognised by its unique city.
    case create(city: String, country: String, nights: Int)
    case change(CrashChange)
}

/// What one worker thread did in one round.
struct CrashWorkerLog: Sendable {
    var thread: Int
    /// Answered 2xx, in the order sent; the revision is the list's right after the change
    /// (nil for a delete: its 204 carries no tag).
    var acknowledged: [(change: CrashChange, revision: UInt64?)] = []
    /// The request the kill interrupted, if any: at most one, since each thread waits for
    /// every answer before sending again.
    var inFlight: CrashInFlight?
    /// What went wrong before the kill (a refused request, an error, an unreadable answer).
    var problems: [String] = []
}

/// Checks a list recovered after a crash against what the workers were told.
///
/// Only what durability promises is asserted: every acknowledged change is there, in commit
/// order; the one unanswered request per thread may or may not have been applied.
struct CrashVerification {
    var problems: [String] = []
    /// The recovered list and each trip's owner, the start of the next round.
    var owners: [Int: Int] = [:]

    /// - Parameters:
    ///   - base: the list when the round started (itself recovered and checked).
    ///   - owners: which thread created each trip of `base`.
    init(recovered: CrashListState, base: CrashListState, owners: [Int: Int], logs: [CrashWorkerLog]) {
        self.owners = owners
        let acknowledged = logs.flatMap(\.acknowledged)

        // Revisions: every change adds exactly one (the workload never asks for a no-op),
        // completions come in commit order, and a thread waits for each answer.
        let revisions = acknowledged.compactMap(\.revision)
        if Set(revisions).count != revisions.count { problems.append("two acknowledged changes share a revision: \(revisions.sorted())") }
        for log in logs {
            let own = log.acknowledged.compactMap(\.revision)
            if own != own.sorted() || own.contains(where: { $0 <= base.revision }) {
                problems.append("thread \(log.thread): acknowledged revisions out of order: \(own)")
            }
        }
        let inFlightCount = UInt64(logs.filter { $0.inFlight != nil }.count)
        let highest = revisions.max() ?? base.revision
        let lowestPossible = max(highest, base.revision + UInt64(acknowledged.count))
        if recovered.revision < lowestPossible || recovered.revision > base.revision + UInt64(acknowledged.count) + inFlightCount {
            problems.append(
                "recovered revision \(recovered.revision), expected \(lowestPossible)…\(base.revision + UInt64(acknowledged.count) + inFlightCount) "
                    + "(round started at \(base.revision), \(acknowledged.count) acknowledged, highest \(highest), \(inFlightCount) in flight)"
            )
        }

        // Replay the acknowledged changes in commit order; a delete goes right after the
        // change its thread made before it.
        var events: [(revision: UInt64, step: Int, thread: Int, change: CrashChange)] = []
        for log in logs {
            var previous = base.revision
            var step = 0
            for (change, revision) in log.acknowledged {
                if let revision {
                    previous = revision
                    step = 0
                } else {
                    step += 1
                }
                events.append((previous, step, log.thread, change))
            }
        }
        events.sort { ($0.revision, $0.step, $0.thread) < ($1.revision, $1.step, $1.thread) }
        var model = base
        for event in events {
            if case .create(let id, _) = event.change { self.owners[id] = event.thread }
            model.apply(event.change)
        }

        // Trips the recovered list has that no acknowledged change made: in-flight creates.
        var claimed: [Int: Int] = [:]  // id → thread
        for id in recovered.order where model.trips[id] == nil {
            let claimants = logs.filter { log in
                guard case .create(let city, let country, let nights)? = log.inFlight else { return false }
                let trip = recovered.trips[id] ?? [:]
                return trip["city"] == .string(city) && trip["country"] == .string(country)
                    && trip["nights"] == .number(String(nights)) && trip["isFavorite"] == .bool(false)
            }
            guard claimants.count == 1, claimed.values.contains(claimants[0].thread) == false else {
                let trip = CrashTripEntry(id: id, json: recovered.trips[id] ?? [:])
                let wasDeleted = acknowledged.contains { $0.change == .delete(id) }
                problems.append(
                    "trip \(trip) is there, but " + (wasDeleted ? "an acknowledged request deleted it" : "no request created it"))
                continue
            }
            claimed[id] = claimants[0].thread
        }
        if Set(recovered.order).count != recovered.order.count { problems.append("an id appears twice: \(recovered.order)") }

        // Each thread's trips: exactly as its acknowledged changes left them, or with its
        // in-flight change applied on top.
        for log in logs {
            let mine = Set(self.owners.filter { $0.value == log.thread }.keys).union(claimed.filter { $0.value == log.thread }.keys)
            let found = recovered.entries(among: mine)
            let before = model.entries(among: mine)
            var candidates = [before]
            switch log.inFlight {
            case nil:
                break
            case .create:
                if let id = claimed.first(where: { $0.value == log.thread })?.key {
                    candidates = [before + [CrashTripEntry(id: id, json: recovered.trips[id] ?? [:])]]
                }
            case .change(let change):
                var after = model
                after.apply(change)
                candidates.append(after.entries(among: mine))
            }
            if !candidates.contains(found) {
                problems.append(
                    "thread \(log.thread): recovered \(found), expected \(candidates.map(\.description).joined(separator: " or ")) "
                        + "after \(log.acknowledged.count) acknowledged changes, in flight: \(log.inFlight.map { "\($0)" } ?? "nothing")")
            }
            for id in claimed.keys where claimed[id] == log.thread { self.owners[id] = log.thread }
        }

        // Across threads: the commit order, leaving out trips an in-flight change may have moved.
        var unsettled = Set<Int>()
        for log in logs {
            switch log.inFlight {
            case .change(.move(let sources, _)): unsettled.formUnion(sources)
            case .change(.delete(let id)): unsettled.insert(id)
            default: break
            }
        }
        let settled = Set(model.order).subtracting(unsettled)
        let recoveredOrder = recovered.order.filter(settled.contains)
        let expectedOrder = model.order.filter(settled.contains)
        if recoveredOrder != expectedOrder {
            problems.append(
                "the order across threads differs from the commit order: recovered \(recoveredOrder), expected \(expectedOrder)")
        }
        self.owners = self.owners.filter { recovered.trips[$0.key] != nil }
    }
}
