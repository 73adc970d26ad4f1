import Synchronization
import TripsDomain
import TripsHTTP

/// Finished responses for the most-read resources, kept until what they show changes:
/// a trip's representations per version, and the whole list's per revision. And the list
/// page's rows per trip version: after a change the page renders the changed trip's row
/// again and copies the others (a row costs microseconds to render, a copy nanoseconds).
///
/// Responses are stored `prepared()`, so writing one copies its head instead of formatting it.
/// A hit costs one lock, one dictionary lookup and one retain; the bytes are shared, never copied.
final class RepresentationCache: Sendable {
    /// What is kept of one thing at one version: a slot per representation and language
    /// choice (`Negotiated.cacheSlot`), grown as slots are filled.
    private struct Entry<Item> {
        var version: UInt64
        var slots: [Item?] = []

        subscript(slot: Int) -> Item? {
            get { slot < slots.count ? slots[slot] : nil }
            set {
                if slot >= slots.count { slots += Array(repeating: nil, count: slot + 1 - slots.count) }
                slots[slot] = newValue
            }
        }
    }

    private let trips = Mutex<[Trip.ID: Entry<HTTPResponse>]>([:])
    private let list = Mutex<Entry<HTTPResponse>?>(nil)
    private let pageRows = Mutex<[Trip.ID: Entry<[UInt8]>]>([:])
    /// Rows of at most this many trips are kept (about 1 KB each); beyond, rows are rendered
    /// each time.
    static let pageRowCapacity = 20_000

    /// The cached response for this trip version and slot, if one is kept.
    func trip(_ id: Trip.ID, version: UInt64, slot: Int) -> HTTPResponse? {
        trips.withLock { entries in entries[id].flatMap { $0.version == version ? $0[slot] : nil } }
    }

    /// Keeps `response`, this trip version's representation in `slot`, and returns it prepared.
    func keep(_ response: HTTPResponse, trip id: Trip.ID, version: UInt64, slot: Int) -> HTTPResponse {
        let response = response.prepared()
        trips.withLock { entries in
            var entry = entries[id].flatMap { $0.version == version ? $0 : nil } ?? Entry(version: version)
            entry[slot] = response
            entries[id] = entry
        }
        return response
    }

    /// The cached response for the whole list at this revision and slot, made by `build` on a miss.
    func list(revision: UInt64, slot: Int, build: () -> HTTPResponse) -> HTTPResponse {
        if let hit = list.withLock({ $0?.version == revision ? $0?[slot] : nil }) {
            return hit
        }
        let response = build().prepared()
        list.withLock { entry in
            if entry?.version != revision { entry = Entry(version: revision) }
            entry?[slot] = response
        }
        return response
    }

    /// The list page's row for this trip version, with or without the move buttons and in a
    /// language, made by `build` on a miss.
    func pageRow(_ id: Trip.ID, version: UInt64, isReorderable: Bool, language: Language, build: () -> [UInt8]) -> [UInt8] {
        let slot = (isReorderable ? Language.allCases.count : 0) + language.index
        if let hit = pageRows.withLock({ rows in rows[id].flatMap { $0.version == version ? $0[slot] : nil } }) {
            return hit
        }
        let row = build()
        pageRows.withLock { rows in
            guard rows[id] != nil || rows.count < Self.pageRowCapacity else { return }
            var entry = rows[id].flatMap { $0.version == version ? $0 : nil } ?? Entry(version: version)
            entry[slot] = row
            rows[id] = entry
        }
        return row
    }

    /// Drops what is cached for trips that no longer exist.
    func forget(_ ids: [Trip.ID]) {
        trips.withLock { entries in
            for id in ids { entries[id] = nil }
        }
        pageRows.withLock { rows in
            for id in ids { rows[id] = nil }
        }
    }
}
