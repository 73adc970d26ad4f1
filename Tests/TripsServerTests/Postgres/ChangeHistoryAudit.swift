import Foundation
import Synchronization
import TripsDomain

@testable import TripsClient
@testable import TripsStore

/// What a writer was answered for one change it made: the revision its answer gave, and what
/// the feed must tell at that revision (the event's name and the trips it names).
struct AcknowledgedChange: Sendable, Hashable, CustomStringConvertible {
    let revision: UInt64
    let name: String
    let ids: [Trip.ID]

    var description: String { "\(name) \(ids) at \(revision)" }
}

/// The events one store's change listener told, in the order it told them. A test waits on it
/// for a revision, for ten seconds at most (the store's own signal, no polling).
final class FeedRecorder: Sendable {
    private let events = Mutex<[ChangeEvent]>([])
    private let heard = DispatchSemaphore(value: 0)

    /// Starts recording what `store` tells from now on.
    init(_ store: some TripStoring) {
        store.setChangeListener { [self] event in
            events.withLock { $0.append(event) }
            heard.signal()
        }
    }

    var all: [ChangeEvent] { events.withLock { $0 } }

    /// Waits until an event at `revision` or later was told; false after ten seconds.
    func wait(through revision: UInt64) -> Bool {
        let deadline = DispatchTime.now() + .seconds(10 * TestTimeout.scale)
        while events.withLock({ ($0.last?.revision ?? 0) < revision }) {
            guard heard.wait(timeout: deadline) == .success else { return false }
        }
        return true
    }
}

/// Checks the history several instances told against what their writers were answered, the
/// way a linearizability check does: the feeds must tell one order of changes, each in full,
/// holding every acknowledged change at the revision its answer gave and nothing else, and
/// replaying that order from an empty list must give the list every instance serves. Each
/// check returns what it found wrong (empty: nothing), for the test to show.
struct ChangeHistoryAudit {
    /// Every instance's feed, as its listener told it from the empty list on.
    let feeds: [[ChangeEvent]]
    let acknowledged: [AcknowledgedChange]

    /// Each feed tells revisions 1, 2, …, n in that order, once each, and never a reset.
    func gapsAndDuplicates() -> [String] {
        feeds.enumerated().compactMap { (instance, feed) -> String? in
            if let reset = feed.first(where: \.isReset) { return "instance \(instance) told a reset at \(reset.revision)" }
            let revisions = feed.map(\.revision)
            guard let step = revisions.indices.first(where: { revisions[$0] != UInt64($0 + 1) }) else { return nil }
            let around = revisions[max(0, step - 2)..<min(revisions.count, step + 3)]
            return "instance \(instance) told \(Array(around)) at positions \(max(0, step - 2))…, where \(step + 1) was due"
        }
    }

    /// Every feed tells exactly the events the first one tells (revision, name and data).
    func divergence() -> [String] {
        guard let first = feeds.first else { return ["no feed"] }
        return feeds.enumerated().dropFirst().compactMap { (instance, feed) -> String? in
            guard feed != first else { return nil }
            let at = feed.indices.first { $0 >= first.count || feed[$0] != first[$0] } ?? first.count
            return "instance \(instance) differs from instance 0 at position \(at) (\(feed.count) and \(first.count) events)"
        }
    }

    /// Every acknowledged change is in the history at the revision its answer gave, as the
    /// change it was; no two share a revision; and the history holds no change nobody was
    /// answered for, or at most `unanswered` (changes refused as cut off, which may be made).
    func unacknowledgedOrMissing(allowingUnanswered unanswered: Int = 0) throws -> [String] {
        guard let history = feeds.first else { return ["no feed"] }
        var problems: [String] = []
        let byRevision = Dictionary(grouping: acknowledged, by: \.revision)
        for (revision, changes) in byRevision where changes.count > 1 {
            problems.append("revision \(revision) was answered for \(changes.count) changes: \(changes)")
        }
        for change in acknowledged {
            guard change.revision >= 1, change.revision <= UInt64(history.count),
                history[Int(change.revision) - 1].revision == change.revision
            else {
                problems.append("\(change) is not in the history of \(history.count) changes")
                continue
            }
            let told = try Self.told(history[Int(change.revision) - 1])
            if told.name != change.name || told.ids != change.ids { problems.append("\(change) was told as \(told)") }
        }
        let unansweredEvents = history.filter { byRevision[$0.revision] == nil }
        if unansweredEvents.count > unanswered {
            let shown = unansweredEvents.prefix(10).map { "\($0.name) at \($0.revision)" }
            problems.append("\(unansweredEvents.count) changes were never answered to any writer (\(unanswered) may be): \(shown)")
        }
        return problems
    }

    /// Ids the history gave to a new trip more than once (a deleted trip's id issued again).
    func reusedIDs() throws -> [Trip.ID] {
        var issued = Set<Trip.ID>()
        var reused: [Trip.ID] = []
        for event in feeds.first ?? [] {
            guard case .created(_, let trips, _)? = try TripChangeEvent(name: event.name, data: event.data) else { continue }
            for trip in trips where !issued.insert(trip.id).inserted { reused.append(trip.id) }
        }
        return reused
    }

    /// The trips replaying the first feed from an empty list gives, as a client applies it.
    func replayed() throws -> [Trip] {
        var trips: [Trip] = []
        for event in feeds.first ?? [] {
            guard let change = try TripChangeEvent(name: event.name, data: event.data) else {
                throw TestFailure("an event this client does not know: \(event.name)")
            }
            trips.apply(change)
        }
        return trips
    }

    /// An event as an `AcknowledgedChange` names it: its name and the trips it is about (the
    /// new ones, the changed one, the deleted ones, the moved ones, the new favorites).
    static func told(_ event: ChangeEvent) throws -> AcknowledgedChange {
        guard let change = try TripChangeEvent(name: event.name, data: event.data) else {
            throw TestFailure("an event this client does not know: \(event.name)")
        }
        let ids: [Trip.ID] =
            switch change {
            case .created(_, let trips, _): trips.map(\.id)
            case .updated(_, let trip): [trip.id]
            case .deleted(_, let ids): ids
            case .reordered(_, let difference): difference.sources
            case .sorted(_, _, let order): order
            case .favorites(_, let added, let removed): added + removed
            case .reset: []
            }
        return AcknowledgedChange(revision: event.revision, name: event.name, ids: ids)
    }
}
