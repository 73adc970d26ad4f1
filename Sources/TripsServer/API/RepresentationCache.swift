import Synchronization
import TripsDomain
import TripsHTTP

/// Finished responses for the most-read resources, kept until what they show changes:
/// a trip's representations per version, and the whole list's per revision, each in every
/// content coding asked for (compressed once, not on every read); the views of the list (a
/// page, a filter) and the trips' pages for the newest revision (`RevisionResponses`). And the list
/// page's rows per trip version: after a change the page renders the changed trip's row
/// again and copies the others (a row costs microseconds to render, a copy nanoseconds).
/// And the list's countries for the page's chips, per revision. And each trip's JSON object
/// per version (`TripJSONCache`), that lists are put together from.
/// And photos, whose bytes never change under their digest: read from the store (a file,
/// a database row) once, then served from memory up to `photoCapacity` bytes.
///
/// Responses are stored `prepared()`, so writing one copies its head instead of formatting it.
/// A hit costs one lock, one lookup by id (`TripIDTable`) and one retain; the bytes are
/// shared, never copied.
final class RepresentationCache: Sendable {
    /// What is kept of one thing at one version: a slot per representation and language
    /// choice (`Negotiated.cacheSlot`), grown as slots are filled.
    private struct Entry<Item: Sendable>: Sendable {
        var version: UInt64
        var slots: [Item?] = []

        subscript(slot: Int) -> Item? {
            get { slot < slots.count ? slots[slot] : nil }
            set {
                if slot >= slots.count { slots += Array(repeating: nil, count: slot + 1 - slots.count) }
                slots[slot] = newValue
            }
        }

        /// A response's slot and coding, as one index: each slot holds every coding.
        subscript(slot: Int, coding: ContentCoding) -> Item? {
            get { self[slot * ContentCoding.allCases.count + coding.rawValue] }
            set { self[slot * ContentCoding.allCases.count + coding.rawValue] = newValue }
        }
    }

    /// How the responses kept are encoded for each coding.
    let compression: ResponseCompression
    /// Each trip's JSON object per version, that lists of trips are put together from.
    let tripJSON = TripJSONCache()
    /// Found by id without hashing it (`TripIDTable`): the lookup every cached read makes.
    private let trips = Mutex(TripIDTable<Entry<HTTPResponse>>())
    private let list = Mutex<Entry<HTTPResponse>?>(nil)
    private let pageRows = Mutex<[Trip.ID: Entry<[UInt8]>]>([:])
    /// The trip pages of one revision (the newest asked for): a page shows the trip that
    /// starts next, so any change may change it.
    private let tripPages = Mutex(RevisionResponses<TripPageKey>(capacity: tripPageCapacity, byteCapacity: tripPageByteCapacity))
    /// The views of the list (a page of it, a filter, a search, the favorites) of one
    /// revision, as `/trips` with a query and `/favorites` answer them.
    private let views = Mutex(RevisionResponses<ViewKey>(capacity: viewCapacity, byteCapacity: viewByteCapacity))
    private let countries = Mutex<(revision: UInt64, names: [String])?>(nil)
    private let photos = Mutex<(responses: [String: HTTPResponse], bytes: Int)>(([:], 0))
    private let assets = Mutex<[PageAsset: [HTTPResponse?]]>([:])
    /// The most photo bytes kept: 64 MiB, a few hundred phone photos.
    static let photoCapacity = 64 << 20
    /// Rows of at most this many trips are kept (about 1 KB each); beyond, rows are rendered
    /// each time.
    static let pageRowCapacity = 20_000
    /// Trip pages kept for one revision, in all: one per trip, host, language choice and
    /// coding asked for. Beyond, pages are rendered each time until the next change.
    static let tripPageCapacity = 2_000
    /// Views kept for one revision, in all: one per target, representation and count
    /// preference asked for.
    static let viewCapacity = 2_000
    /// The most bytes kept of one revision's views (keys, heads and content).
    static let viewByteCapacity = 32 << 20
    /// The most bytes kept of one revision's trip pages.
    static let tripPageByteCapacity = 32 << 20

    /// A trip page's place among those of one revision. The host is part of it: the page's
    /// links name the host the request did (`HostAllowList` let through only names it answers).
    struct TripPageKey: RevisionResponseKey {
        let id: Trip.ID
        /// The request's `Host`, as it sent it.
        let host: String
        let slot: Int
        let coding: ContentCoding

        var byteCount: Int { host.utf8.count }
    }

    /// A view's place among those of one revision: everything its answer depends on
    /// besides the list at that revision.
    struct ViewKey: RevisionResponseKey {
        let path: String
        /// The query exactly as sent: its links repeat it.
        let query: String?
        let slot: Int
        /// `Prefer: count=exact` on a paged read: its answer says the view's totals.
        let countsExactly: Bool

        var byteCount: Int { path.utf8.count + (query?.utf8.count ?? 0) }
    }

    init(compression: ResponseCompression = ResponseCompression()) {
        self.compression = compression
    }

    /// The cached response for this trip version, slot and coding, if one is kept.
    func trip(_ id: Trip.ID, version: UInt64, slot: Int, coding: ContentCoding) -> HTTPResponse? {
        trips.withLock { entries in entries[id].flatMap { $0.version == version ? $0[slot, coding] : nil } }
    }

    /// Keeps `response`, this trip version's representation in `slot` as it is before any
    /// coding, encoded for identity and for `coding`, and returns it prepared in `coding`.
    func keep(_ response: HTTPResponse, trip id: Trip.ID, version: UInt64, slot: Int, coding: ContentCoding) -> HTTPResponse {
        let encoded = encodings(of: response, for: coding)
        trips.withLock { entries in
            var entry = entries[id].flatMap { $0.version == version ? $0 : nil } ?? Entry(version: version)
            for (coding, response) in encoded { entry[slot, coding] = response }
            entries[id] = entry
        }
        return encoded[encoded.count - 1].response
    }

    /// The cached response for the whole list at this revision, slot and coding; on a miss
    /// encoded from the identity one when that is kept, else made by `build`.
    func list(revision: UInt64, slot: Int, coding: ContentCoding, build: () -> HTTPResponse) -> HTTPResponse {
        let (hit, identity) = list.withLock { entry in
            entry?.version == revision ? (entry?[slot, coding], entry?[slot, .identity]) : (nil, nil)
        }
        if let hit { return hit }
        let encoded =
            identity.map { [(ContentCoding.identity, $0), (coding, compression.encode($0, as: coding).prepared())] }
            ?? encodings(of: build(), for: coding)
        list.withLock { entry in
            if entry?.version != revision { entry = Entry(version: revision) }
            for (coding, response) in encoded { entry?[slot, coding] = response }
        }
        return encoded[encoded.count - 1].response
    }

    /// A page asset's 200 in `coding`, made by `build` on the first read: the assets are
    /// compiled in, so one kept answer per asset and coding serves until the server stops.
    func asset(_ asset: PageAsset, coding: ContentCoding, build: () -> HTTPResponse) -> HTTPResponse {
        if let hit = assets.withLock({ $0[asset]?[coding.rawValue] }) { return hit }
        let encoded = encodings(of: build(), for: coding)
        assets.withLock { kept in
            var slots = kept[asset] ?? Array(repeating: nil, count: ContentCoding.allCases.count)
            for (coding, response) in encoded { slots[coding.rawValue] = response }
            kept[asset] = slots
        }
        return encoded[encoded.count - 1].response
    }

    /// `response` encoded for identity and, unless that is it, for `coding` (last), prepared.
    private func encodings(of response: HTTPResponse, for coding: ContentCoding) -> [(coding: ContentCoding, response: HTTPResponse)] {
        let identity = compression.encode(response, as: .identity).prepared()
        guard coding != .identity else { return [(.identity, identity)] }
        return [(.identity, identity), (coding, compression.encode(identity, as: coding).prepared())]
    }

    /// The trip page kept for `key` at `revision`, if any.
    func tripPage(_ key: TripPageKey, revision: UInt64) -> HTTPResponse? {
        tripPages.withLock { $0.response(key, at: revision) }
    }

    /// Keeps `response`, the page of `key` at `revision` before any coding, encoded for
    /// identity and for `key.coding`, and returns it prepared in `key.coding`.
    func keep(_ response: HTTPResponse, tripPage key: TripPageKey, revision: UInt64) -> HTTPResponse {
        let encoded = encodings(of: response, for: key.coding)
        let kept = encoded.map { coding, response in
            (key: TripPageKey(id: key.id, host: key.host, slot: key.slot, coding: coding), response: response)
        }
        tripPages.withLock { $0.keep(kept, at: revision) }
        return encoded[encoded.count - 1].response
    }

    /// The view kept for `key` at `revision` in `coding`; on a miss made by `build`, and kept
    /// when `coding` is identity. A compressed view is left to the API's encoding, which
    /// compresses a large one off the loop: kept, a client could have the loop compress
    /// every distinct view it asks for.
    func view(_ key: ViewKey, revision: UInt64, coding: ContentCoding, build: () throws(APIError) -> HTTPResponse)
        throws(APIError) -> HTTPResponse
    {
        guard coding == .identity else { return try build() }
        if let hit = views.withLock({ $0.response(key, at: revision) }) { return hit }
        let response = compression.encode(try build(), as: .identity).prepared()
        views.withLock { $0.keep([(key, response)], at: revision) }
        return response
    }

    /// The list page's row for this trip version in a language, made by `build` on a miss
    /// (the same row serves every view: its actions are in the one menu the script opens).
    func pageRow(_ id: Trip.ID, version: UInt64, language: Language, build: () -> [UInt8]) -> [UInt8] {
        let slot = language.index
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

    /// The list's countries as the page's chips name them at this revision, made by `build` on a
    /// miss: finding them may take a pass over the list (`TripList.firstCountries(limit:)`),
    /// which a page of 100,000 trips would otherwise pay on every read.
    func countries(revision: UInt64, build: () -> [String]) -> [String] {
        if let hit = countries.withLock({ $0?.revision == revision ? $0?.names : nil }) { return hit }
        let names = build()
        countries.withLock { kept in
            if kept.map({ $0.revision < revision }) ?? true { kept = (revision, names) }
        }
        return names
    }

    /// The whole photo with this digest as a prepared 200, made by `build` on a miss (nil: no
    /// such photo, nothing kept). A photo over a quarter of the capacity is not kept; to make
    /// room, photos are dropped in no particular order (their next read is one file read).
    func photo(_ digest: String, build: () throws(APIError) -> HTTPResponse?) throws(APIError) -> HTTPResponse? {
        if let hit = photos.withLock({ $0.responses[digest] }) { return hit }
        guard let response = try build()?.prepared() else { return nil }
        let size = response.body.count
        guard size <= Self.photoCapacity / 4 else { return response }
        photos.withLock { cache in
            guard cache.responses[digest] == nil else { return }
            while cache.bytes + size > Self.photoCapacity, let (dropped, old) = cache.responses.first {
                cache.responses[dropped] = nil
                cache.bytes -= old.body.count
            }
            cache.responses[digest] = response
            cache.bytes += size
        }
        return response
    }

    /// Drops what is cached for trips that no longer exist.
    func forget(_ ids: [Trip.ID]) {
        trips.withLock { entries in
            for id in ids { entries[id] = nil }
        }
        pageRows.withLock { rows in
            for id in ids { rows[id] = nil }
        }
        tripJSON.forget(ids)
    }
}
