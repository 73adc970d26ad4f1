import Synchronization
import TripsDomain

/// Finished responses for the most-read resources, kept until what they show changes:
/// a trip's representations per version, and the whole list's per revision. And the list
/// page's rows per trip version: after a change the page renders the changed trip's row
/// again and copies the others (a row costs microseconds to render, a copy nanoseconds).
///
/// Responses are stored `prepared()`, so writing one copies its head instead of formatting it.
/// A hit costs one lock, one dictionary lookup and one retain; the bytes are shared, never copied.
final class RepresentationCache: Sendable {
    private struct Entry {
        var version: UInt64
        /// One slot per representation, in declared order (`ReadForm.position`).
        var responses: [HTTPResponse?]
    }

    private struct PageRows {
        var version: UInt64
        /// Without and with the move buttons (a reorderable view).
        var rows: [[UInt8]?] = [nil, nil]
    }

    private let trips = Mutex<[Trip.ID: Entry]>([:])
    private let list = Mutex<Entry?>(nil)
    private let pageRows = Mutex<[Trip.ID: PageRows]>([:])
    /// Rows of at most this many trips are kept (about 1 KB each); beyond, rows are rendered
    /// each time.
    static let pageRowCapacity = 20_000

    /// The cached response for this trip version and representation, made by `build` on a miss.
    func trip(_ id: Trip.ID, version: UInt64, representation: Int, build: () -> HTTPResponse) -> HTTPResponse {
        let hit = trips.withLock { entries -> HTTPResponse? in
            guard let entry = entries[id], entry.version == version else { return nil }
            return entry.responses[representation]
        }
        if let hit { return hit }
        let response = build().prepared()
        trips.withLock { entries in
            var entry =
                entries[id].flatMap { $0.version == version ? $0 : nil }
                ?? Entry(version: version, responses: Array(repeating: nil, count: ReadForm<Trip>.mediaTypes.count))
            entry.responses[representation] = response
            entries[id] = entry
        }
        return response
    }

    /// The cached response for the whole list at this revision, made by `build` on a miss.
    func list(revision: UInt64, representation: Int, build: () -> HTTPResponse) -> HTTPResponse {
        if let hit = list.withLock({ $0?.version == revision ? $0?.responses[representation] : nil }) {
            return hit
        }
        let response = build().prepared()
        list.withLock { entry in
            if entry?.version != revision {
                entry = Entry(version: revision, responses: Array(repeating: nil, count: ReadForm<[Trip]>.mediaTypes.count))
            }
            entry?.responses[representation] = response
        }
        return response
    }

    /// The list page's row for this trip version, made by `build` on a miss.
    func pageRow(_ id: Trip.ID, version: UInt64, isReorderable: Bool, build: () -> [UInt8]) -> [UInt8] {
        let slot = isReorderable ? 1 : 0
        if let hit = pageRows.withLock({ rows in rows[id].flatMap { $0.version == version ? $0.rows[slot] : nil } }) {
            return hit
        }
        let row = build()
        pageRows.withLock { rows in
            guard rows[id] != nil || rows.count < Self.pageRowCapacity else { return }
            var entry = rows[id].flatMap { $0.version == version ? $0 : nil } ?? PageRows(version: version)
            entry.rows[slot] = row
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
