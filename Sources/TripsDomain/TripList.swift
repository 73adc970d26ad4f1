import Foundation
import TripsFormats

/// The ordered list of trips, and every rule for changing it.
///
/// A value type: an operation works on `self` and either finishes or throws before
/// changing anything, so every operation is all or nothing. The list counts its
/// changes (`revision`) and remembers when each trip last changed (`version(of:)`);
/// the server turns both into ETags.
public struct TripList: Sendable {
    /// Goes up by one with every change to the list, its order or any trip in it.
    public internal(set) var revision: UInt64
    /// The highest id ever issued; ids of deleted trips are never issued again.
    public private(set) var lastIssuedID: Int
    /// The highest `lastIssuedID` storage may hold: 2^53 - 1, the last integer a JavaScript
    /// client (the page) reads exactly, and far from where issuing the next ids overflows.
    /// Storage that says more is damaged (or hostile), and refused when read.
    public static let maximumLastIssuedID = (1 << 53) - 1
    /// Every trip by id, with the revision at which it last changed.
    private var entries: TripIDTable<Entry>
    /// The ids in stored order.
    private var order: ListOrder
    /// The ids of the favorites, kept with `entries` (`setEntry`): a favorite drop answers
    /// with the favorites, which are then found without a pass over the whole list.
    private var favoriteIDs: Set<Trip.ID>
    /// The photos the trips refer to, also kept with `entries` (`setEntry`): a photo is served
    /// by its digest, on every request for it.
    public private(set) var photos: TripPhotoIndex
    /// How many trips, nights and favorites the whole list holds, also kept with `entries`
    /// (`setEntry`): the summary of the All view costs no pass over the list.
    public private(set) var totals: TripTotals
    /// How many trips name each country, also kept with `entries` (`setEntry`): the page's
    /// chips stop looking once they have found every country (`firstCountries(limit:)`).
    public private(set) var countries: CountryCounts

    package struct Entry: Sendable, Hashable {
        package var trip: Trip {
            didSet { text = text.updated(for: trip, from: oldValue) }
        }
        package var version: UInt64
        /// The trip's words folded, kept with it so that no search or drop folds them again.
        private(set) var text: TripSearchText

        package init(trip: Trip, version: UInt64) {
            self.trip = trip
            self.version = version
            text = TripSearchText(trip)
        }
    }

    /// A list holding `trips`, as restored from storage or seeded.
    ///
    /// - Precondition: ids are unique, and none is above `lastIssuedID` (which defaults to the largest).
    public init(trips: [Trip] = [], revision: UInt64 = 0, lastIssuedID: Int? = nil) {
        self.init(restoring: trips.map { ($0, revision) }, revision: revision, lastIssuedID: lastIssuedID ?? 0)
    }

    /// A list exactly as it was saved: trips in order, each with the revision at which it
    /// last changed, so ETags survive a restart.
    public init(restoring entries: [(trip: Trip, version: UInt64)], revision: UInt64, lastIssuedID: Int) {
        var restoration = Restoration(expectedCount: entries.count, revision: revision, lastIssuedID: lastIssuedID)
        for entry in entries {
            precondition(restoration.append(entry.trip, version: entry.version), "trip \(entry.trip.id) appears twice")
        }
        self = restoration.finish()
    }

    private init(
        revision: UInt64, lastIssuedID: Int, entries: TripIDTable<Entry>, order: ListOrder, favoriteIDs: Set<Trip.ID>,
        photos: TripPhotoIndex, totals: TripTotals, countries: CountryCounts
    ) {
        self.revision = revision
        self.lastIssuedID = lastIssuedID
        self.entries = entries
        self.order = order
        self.favoriteIDs = favoriteIDs
        self.photos = photos
        self.totals = totals
        self.countries = countries
    }

    /// A list being restored trip by trip, in stored order: start-up hands it each part of a
    /// snapshot as soon as that part is read, while the next part is still being read.
    public struct Restoration: Sendable {
        /// Built as the trips come, in the list's order, which may be any order of ids.
        private var entries = TripIDTable<Entry>.Builder()
        private var ids: [Trip.ID] = []
        private var favoriteIDs = Set<Trip.ID>()
        private var photos = TripPhotoIndex()
        private var totals = TripTotals()
        private var countries = CountryCounts()
        private let revision: UInt64
        private var lastIssuedID: Int

        /// `lastIssuedID` grows to the largest id appended.
        public init(expectedCount: Int, revision: UInt64, lastIssuedID: Int) {
            ids.reserveCapacity(expectedCount)
            self.revision = revision
            self.lastIssuedID = lastIssuedID
        }

        /// Appends the next trip. False when an earlier trip had its id: the restoration is
        /// then broken, and the caller gives it up.
        public mutating func append(_ trip: Trip, version: UInt64) -> Bool {
            guard entries.insert(Entry(trip: trip, version: version), for: trip.id) else { return false }
            ids.append(trip.id)
            if trip.isFavorite { favoriteIDs.insert(trip.id) }
            photos.add(trip.photo)
            totals.add(trip)
            countries.add(trip.country)
            lastIssuedID = max(lastIssuedID, trip.id)
            return true
        }

        /// The restored list.
        public consuming func finish() -> TripList {
            TripList(
                revision: revision, lastIssuedID: lastIssuedID, entries: entries.finish(), order: ListOrder(ids),
                favoriteIDs: favoriteIDs,
                photos: photos, totals: totals, countries: countries)
        }
    }

    /// The trips in stored order.
    public var trips: Trips {
        Trips(entries: entries, ids: order.all, count: order.count)
    }

    /// The trips that follow this one, in stored order; nil when the list does not hold it.
    public func trips(after id: Trip.ID) -> Trips? {
        guard let position = order.position(of: id) else { return nil }
        return Trips(entries: entries, ids: order.ids(after: id), count: order.count - position - 1)
    }

    /// The ids of the trips in front of this one (nil: every trip), nearest first; empty when
    /// the list does not hold it.
    package func ids(before id: Trip.ID?) -> ListOrder.Prefix {
        order.ids(before: id)
    }

    /// The ids of the trips that follow this one, in stored order; empty when the list does
    /// not hold it.
    package func ids(after id: Trip.ID) -> ListOrder.Suffix {
        order.ids(after: id)
    }

    /// Those of `ids` that are in the list, once each, in the list's order.
    public func inListOrder(_ ids: some Sequence<Trip.ID>) -> [Trip.ID] {
        order.sorted(Set(ids).filter { entries[$0] != nil })
    }

    /// The favorite trips, in stored order: found through their ids, in time that grows with
    /// how many they are, not with the list.
    public var favorites: [Trip] {
        order.sorted(favoriteIDs).compactMap { entries[$0]?.trip }
    }

    /// How many trips the list holds.
    public var count: Int { order.count }

    /// The trip with this id, if the list has it.
    public subscript(id: Trip.ID) -> Trip? {
        entries[id]?.trip
    }

    /// Whether the list has a trip with this id (`self[id] != nil`, without copying the trip).
    public func contains(_ id: Trip.ID) -> Bool {
        entries.contains(id)
    }

    /// The revision at which this trip last changed.
    public func version(of id: Trip.ID) -> UInt64? {
        entries[id]?.version
    }

    /// Appends the trip a draft describes, under a new id.
    @discardableResult
    public mutating func add(_ draft: TripDraft) throws(TripsError) -> Trip {
        try add([draft], before: nil)[0]
    }

    /// Adds the trips the drafts describe, in order, under new ids: in front of the trip
    /// `before` names (where a drop on the list landed), or at the end. All or nothing: an
    /// invalid draft (every one is reported) or an unknown `before` adds none.
    @discardableResult
    public mutating func add(_ drafts: [TripDraft], before: Trip.ID?) throws(TripsError) -> [Trip] {
        let added = try Self.newTrips(drafts, firstID: lastIssuedID + 1)
        if let before, !entries.contains(before) { throw .invalidMember("before", "no trip has the id \(before)") }
        insert(added, before: before)
        return added
    }

    /// The trips `drafts` describe, under ids from `firstID` on, as `add` makes them: none
    /// when a draft is invalid (every rule each breaks is reported).
    package static func newTrips(_ drafts: [TripDraft], firstID: Trip.ID) throws(TripsError) -> [Trip] {
        // Each draft read where it stands: `enumerated()` copied every draft twice over.
        var errors: [TripsError] = []
        for index in drafts.indices {
            for violation in drafts[index].violations() { errors.append(drafts.count == 1 ? violation : .inElement(index, violation)) }
        }
        if let error = TripsError.combining(errors) { throw error }
        var trips: [Trip] = []
        trips.reserveCapacity(drafts.count)
        for index in drafts.indices { trips.append(Trip(id: firstID + index, draft: drafts[index])) }
        return trips
    }

    /// Puts trips made under the next ids in front of `before` (a trip of the list), or at the
    /// end: one change. Each trip's entry is `leader`'s when it holds the trip as this change
    /// added it (`apply(_:as:following:)`).
    mutating func insert(_ added: [Trip], before: Trip.ID?, following leader: TripList? = nil) {
        assert(added.enumerated().allSatisfy { $1.id == lastIssuedID + 1 + $0 }, "trips inserted under ids not the next")
        lastIssuedID += added.count
        revision += 1
        for trip in added {
            if let entry = leader?.entries[trip.id], entry.version == revision {
                assert(entry.trip == trip, "the leader's trip \(trip.id) at revision \(revision) is another")
                setEntry(entry, for: trip.id)
            } else {
                setEntry(Entry(trip: trip, version: revision), for: trip.id)
            }
        }
        // One trip (every create) without an array made for its id.
        if added.count == 1 {
            order.insert(CollectionOfOne(added[0].id), before: before)
        } else {
            order.insert(added.map(\.id), before: before)
        }
    }

    /// Removes these trips, whatever order they are named in. Unknown ids fail the whole call.
    /// Returns whether anything was removed (false only for an empty list of ids).
    @discardableResult
    public mutating func delete(_ ids: [Trip.ID]) throws(TripsError) -> Bool {
        let doomed = try existing(ids)
        guard !doomed.isEmpty else { return false }
        for id in doomed { setEntry(nil, for: id) }
        order.remove(doomed)
        revision += 1
        return true
    }

    /// Replaces every field but the id and the photo.
    @discardableResult
    public mutating func replace(_ id: Trip.ID, with draft: TripDraft) throws(TripsError) -> Trip {
        guard entries[id] != nil else { throw .unknownTrips([id]) }
        try draft.validate()
        return update(id) { $0 = Trip(id: id, draft: draft, photo: $0.photo) }
    }

    /// Applies a JSON merge patch (RFC 7396) to one trip; see `draft(patching:with:)`.
    @discardableResult
    public mutating func patch(_ id: Trip.ID, with patch: JSONValue) throws(TripsError) -> Trip {
        try replace(id, with: draft(patching: id, with: patch))
    }

    /// The trip's fields with a JSON merge patch (RFC 7396) applied: only the named fields
    /// change, `null` resets an optional field, and the id and required fields cannot be
    /// removed. The photo is read-only, as in a replace: a patch may name it only as it is.
    public func draft(patching id: Trip.ID, with patch: JSONValue) throws(TripsError) -> TripDraft {
        guard let trip = self[id] else { throw .unknownTrips([id]) }
        guard case .object(let changes) = patch else {
            throw .invalidBody("a merge patch for a trip must be a JSON object, not \(patch.kindName)")
        }
        for (name, change) in changes where change == .null {
            guard let field = Trip.Field(rawValue: name) else { throw .unknownMember(name) }
            if field == .photo, trip.photo != nil { throw .invalidField(field, TripPhoto.readOnlyRule) }
            guard field.isOptional else { throw .invalidField(field, "cannot be null: a trip must have it") }
        }
        return try TripDraft(json: trip.jsonValue.mergePatched(with: patch), replacing: trip)
    }

    /// Makes a trip a favorite, or not.
    @discardableResult
    public mutating func setFavorite(_ id: Trip.ID, _ isFavorite: Bool) throws(TripsError) -> Trip {
        guard entries[id] != nil else { throw .unknownTrips([id]) }
        return update(id) { $0.isFavorite = isFavorite }
    }

    /// Sets a trip's photo, or clears it (nil). The photo's bytes are the store's business.
    @discardableResult
    public mutating func setPhoto(_ id: Trip.ID, _ photo: TripPhoto?) throws(TripsError) -> Trip {
        guard entries[id] != nil else { throw .unknownTrips([id]) }
        return update(id) { $0.photo = photo }
    }

    /// Flips whether a trip is a favorite.
    @discardableResult
    public mutating func toggleFavorite(_ id: Trip.ID) throws(TripsError) -> Trip {
        guard let trip = self[id] else { throw .unknownTrips([id]) }
        return try setFavorite(id, !trip.isFavorite)
    }

    /// A favorite drop: makes a set of trips favorites, all or nothing, and says which ones
    /// were not already, in list order. Empty means the favorites did not change, which a
    /// client can tell its user (the lesson's app plays its success haptic only otherwise).
    @discardableResult
    public mutating func makeFavorites(_ drop: FavoriteDrop) throws(TripsError) -> [Trip.ID] {
        let dropped = try existing(try resolve(drop))
        let added = order.sorted(dropped.filter { entries[$0]?.trip.isFavorite == false })
        guard !added.isEmpty else { return [] }
        revision += 1
        for id in added {
            guard var entry = entries[id] else { continue }
            entry.trip.isFavorite = true
            entry.version = revision
            setEntry(entry, for: id)
        }
        return added
    }

    /// Sorts the stored list, stably. Returns whether the order changed.
    @discardableResult
    public mutating func sort(by key: TripSortKey) -> Bool {
        let sorted = Array(trips).stablySorted(by: TripOrder(key: key)).map(\.id)
        guard !sorted.elementsEqual(order) else { return false }
        order = ListOrder(sorted)
        revision += 1
        return true
    }

    /// The trips a drop's items name, each once, in the order first named: an id as it is, a
    /// line of text the one trip whose sentence or city it is. Both compare the way a search does (case- and
    /// diacritic-insensitive, Unicode-normalised), and a line that matches several trips is
    /// refused with their ids rather than guessed; the first item refused is the error.
    ///
    /// The drop folded its lines when it was read, and the list keeps its trips' words folded
    /// (`TripSearchText`): this is one pass over the list that looks each trip up among the
    /// names dropped, then one lookup per item.
    ///
    /// - Complexity: O(n + m) for n trips and m items, however many lines repeat a name.
    public func resolve(_ drop: FavoriteDrop) throws(TripsError) -> [Trip.ID] {
        var byName: [String: [Trip.ID]] = [:]
        var byDescription: [FavoriteDrop.Description: [Trip.ID]] = [:]
        if !drop.names.isEmpty || !drop.descriptions.isEmpty {
            for id in order {
                guard let entry = entries[id] else { continue }
                let city = entry.text.city
                if drop.names.contains(city) { byName[city, default: []].append(id) }
                if drop.describedCities.contains(city) {
                    let description = FavoriteDrop.Description(entry.trip, text: entry.text)
                    if drop.descriptions.contains(description) { byDescription[description, default: []].append(id) }
                }
            }
        }
        // 100,000 lines naming one trip are one id in the change, its journal record and its answer.
        var ids: [Trip.ID] = []
        var seen = Set<Trip.ID>()
        for lookup in drop.lookups {
            let id: Trip.ID
            switch lookup {
            case .id(let named):
                id = named
            case .name(let line, let name):
                id = try only(byName[name] ?? [], named: line)
            case .sentence(let line, let description, let name):
                // The trip the sentence describes, in whichever language it was written; else a
                // city that happens to hold a colon and a comma.
                let described = byDescription[description] ?? []
                id = try only(described.isEmpty ? byName[name] ?? [] : described, named: line)
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    /// The one trip of `matches`; a line that names none, or several, is refused.
    private func only(_ matches: [Trip.ID], named line: String) throws(TripsError) -> Trip.ID {
        guard let first = matches.first else { throw .noTripNamed(line) }
        guard matches.count == 1 else { throw .ambiguousName(line, candidates: matches) }
        return first
    }

    /// `ids` as a set, when every one of them is in the list.
    package func existing(_ ids: [Trip.ID]) throws(TripsError) -> Set<Trip.ID> {
        var seen = Set<Trip.ID>()
        let unknown = ids.filter { seen.insert($0).inserted && !entries.contains($0) }
        guard unknown.isEmpty else { throw .unknownTrips(unknown) }
        return seen
    }

    /// Changes one trip (which must be in the list) with `change`; when that changed
    /// anything, counts a new revision and makes it the trip's version.
    @discardableResult
    mutating func update(_ id: Trip.ID, _ change: (inout Trip) -> Void) -> Trip {
        guard var entry = entries[id] else { preconditionFailure("trip \(id) is not in the list") }
        let before = entry.trip
        change(&entry.trip)
        if entry.trip != before {
            revision += 1
            entry.version = revision
            setEntry(entry, for: id)
        }
        return entry.trip
    }

    /// Puts `entry` (nil: none) under `id`. Every change to `entries` goes through here, which
    /// keeps `favoriteIDs`, `photos`, `totals` and `countries` in step.
    private mutating func setEntry(_ entry: consuming Entry?, for id: Trip.ID) {
        let replaced = entries[id]?.trip
        if let replaced { totals.remove(replaced) }
        if let trip = entry?.trip { totals.add(trip) }
        if entry?.trip.country != replaced?.country {
            if let replaced { countries.remove(replaced.country) }
            if let trip = entry?.trip { countries.add(trip.country) }
        }
        if entry?.trip.photo != replaced?.photo {
            photos.remove(replaced?.photo)
            photos.add(entry?.trip.photo)
        }
        // The set holds exactly the favorites: only a trip that was one can need taking out
        // (no hashing of every new trip's id to remove it from a set that lacks it).
        if entry?.trip.isFavorite == true {
            favoriteIDs.insert(id)
        } else if replaced?.isFavorite == true {
            favoriteIDs.remove(id)
        }
        // Last, and moved in: assigned while still used above, the entry was copied through
        // the runtime's generic copy of an optional (a thirtieth of a replayed create).
        entries[id] = consume entry
    }

    /// The order with `moving` taken out and put back as a block in front of `anchor`, or
    /// at the end; whether that changed it.
    package mutating func reorder(_ moving: Set<Trip.ID>, before anchor: Trip.ID?) -> Bool {
        guard order.move(moving, before: anchor) else { return false }
        revision += 1
        return true
    }

    /// The first id from `id` on (in stored order) that `skip` does not hold.
    package func firstID(from id: Trip.ID, skipping skip: Set<Trip.ID>) -> Trip.ID? {
        order.ids(from: id).first { !skip.contains($0) }
    }
}

extension TripList: Hashable {
    public static func == (lhs: TripList, rhs: TripList) -> Bool {
        lhs.revision == rhs.revision && lhs.lastIssuedID == rhs.lastIssuedID && lhs.entries == rhs.entries
            && lhs.order.elementsEqual(rhs.order)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(revision)
        hasher.combine(lastIssuedID)
        for id in order { hasher.combine(id) }
    }
}
