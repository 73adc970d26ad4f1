import Synchronization
import TripsDomain

/// Finished responses for the most-read resources, kept until what they show changes:
/// a trip's representations per version, and the whole list's per revision.
///
/// Responses are stored `prepared()`, so writing one copies its head instead of formatting it.
/// A hit costs one lock, one dictionary lookup and one retain; the bytes are shared, never copied.
final class RepresentationCache: Sendable {
    private struct Entry {
        var version: UInt64
        /// One slot per representation, in declared order (`ReadForm.position`).
        var responses: [HTTPResponse?]
    }

    private let trips = Mutex<[Trip.ID: Entry]>([:])
    private let list = Mutex<Entry?>(nil)

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

    /// Drops what is cached for trips that no longer exist.
    func forget(_ ids: [Trip.ID]) {
        trips.withLock { entries in
            for id in ids { entries[id] = nil }
        }
    }
}
