import Foundation

/// The ordered list of trips, and every rule for changing it.
///
/// A value type: an operation works on `self` and either finishes or throws before
/// changing anything, so every operation is all or nothing. The list counts its
/// changes (`revision`) and remembers when each trip last changed (`version(of:)`);
/// the server turns both into ETags.
public struct TripList: Sendable, Hashable {
    /// The trips in stored order.
    public internal(set) var trips: [Trip]
    /// Goes up by one with every change to the list, its order or any trip in it.
    public internal(set) var revision: UInt64
    /// The highest id ever issued; ids of deleted trips are never issued again.
    public private(set) var lastIssuedID: Int
    /// Where each trip sits in `trips`.
    private var positions: [Trip.ID: Int]
    /// The revision at which each trip last changed.
    private var versions: [Trip.ID: UInt64]

    /// A list holding `trips`, as restored from storage or seeded.
    ///
    /// - Precondition: ids are unique, and none is above `lastIssuedID` (which defaults to the largest).
    public init(trips: [Trip] = [], revision: UInt64 = 0, lastIssuedID: Int? = nil) {
        self.trips = trips
        self.revision = revision
        self.lastIssuedID = max(lastIssuedID ?? 0, trips.map(\.id).max() ?? 0)
        positions = [:]
        versions = Dictionary(uniqueKeysWithValues: trips.map { ($0.id, revision) })
        reindex()
    }

    /// A list exactly as it was saved: trips in order, each with the revision at which it
    /// last changed, so ETags survive a restart.
    public init(restoring entries: [(trip: Trip, version: UInt64)], revision: UInt64, lastIssuedID: Int) {
        self.init(trips: entries.map(\.trip), revision: revision, lastIssuedID: lastIssuedID)
        for entry in entries { versions[entry.trip.id] = entry.version }
    }

    /// The trip with this id, if the list has it.
    public subscript(id: Trip.ID) -> Trip? {
        positions[id].map { trips[$0] }
    }

    /// The revision at which this trip last changed.
    public func version(of id: Trip.ID) -> UInt64? {
        versions[id]
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
        let errors = drafts.enumerated().flatMap { index, draft in
            draft.violations().map { drafts.count == 1 ? $0 : .inElement(index, $0) }
        }
        if let error = TripsError.combining(errors) { throw error }
        var insertion = trips.endIndex
        if let before {
            guard let position = positions[before] else { throw .invalidMember("before", "no trip has the id \(before)") }
            insertion = position
        }
        let added = drafts.enumerated().map { offset, draft in Trip(id: lastIssuedID + 1 + offset, draft: draft) }
        lastIssuedID += added.count
        if insertion == trips.endIndex {
            for (offset, trip) in added.enumerated() { positions[trip.id] = trips.count + offset }
            trips.append(contentsOf: added)
        } else {
            trips.insert(contentsOf: added, at: insertion)
            reindex()
        }
        recordChange(of: added.map(\.id))
        return added
    }

    /// Removes these trips, whatever order they are named in. Unknown ids fail the whole call.
    /// Returns whether anything was removed (false only for an empty list of ids).
    @discardableResult
    public mutating func delete(_ ids: [Trip.ID]) throws(TripsError) -> Bool {
        let doomed = try existing(ids)
        guard !doomed.isEmpty else { return false }
        trips.removeAll { doomed.contains($0.id) }
        for id in doomed { versions[id] = nil }
        reindex()
        recordChange(of: [])
        return true
    }

    /// Replaces every field but the id.
    @discardableResult
    public mutating func replace(_ id: Trip.ID, with draft: TripDraft) throws(TripsError) -> Trip {
        guard let position = positions[id] else { throw .unknownTrips([id]) }
        try draft.validate()
        let trip = Trip(id: id, draft: draft)
        if trips[position] != trip {
            trips[position] = trip
            recordChange(of: [id])
        }
        return trip
    }

    /// Applies a JSON merge patch (RFC 7396) to one trip; see `draft(patching:with:)`.
    @discardableResult
    public mutating func patch(_ id: Trip.ID, with patch: JSONValue) throws(TripsError) -> Trip {
        try replace(id, with: draft(patching: id, with: patch))
    }

    /// The trip's fields with a JSON merge patch (RFC 7396) applied: only the named fields
    /// change, `null` resets an optional field, and the id and required fields cannot be removed.
    public func draft(patching id: Trip.ID, with patch: JSONValue) throws(TripsError) -> TripDraft {
        guard let trip = self[id] else { throw .unknownTrips([id]) }
        guard case .object(let changes) = patch else {
            throw .invalidBody("a merge patch for a trip must be a JSON object, not \(patch.kindName)")
        }
        for (name, change) in changes where change == .null {
            guard let field = Trip.Field(rawValue: name) else { throw .unknownMember(name) }
            guard field.isOptional else { throw .invalidField(field, "cannot be null: a trip must have it") }
        }
        return try TripDraft(json: trip.jsonValue.mergePatched(with: patch), replacing: id)
    }

    /// Makes a trip a favorite, or not.
    @discardableResult
    public mutating func setFavorite(_ id: Trip.ID, _ isFavorite: Bool) throws(TripsError) -> Trip {
        guard let position = positions[id] else { throw .unknownTrips([id]) }
        if trips[position].isFavorite != isFavorite {
            trips[position].isFavorite = isFavorite
            recordChange(of: [id])
        }
        return trips[position]
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
        let dropped = try existing(try drop.items.map { (item) throws(TripsError) in try resolve(item) })
        var added: [Trip.ID] = []
        for index in trips.indices where dropped.contains(trips[index].id) && !trips[index].isFavorite {
            trips[index].isFavorite = true
            added.append(trips[index].id)
        }
        if !added.isEmpty { recordChange(of: added) }
        return added
    }

    /// Sorts the stored list, stably. Returns whether the order changed.
    @discardableResult
    public mutating func sort(by key: TripSortKey) -> Bool {
        let sorted = trips.stablySorted(by: TripOrder(key: key))
        guard sorted.map(\.id) != trips.map(\.id) else { return false }
        trips = sorted
        reindex()
        recordChange(of: [])
        return true
    }

    /// Finds the trip a dropped item names: an id it has, or a line of text that is a
    /// trip's sentence or its city. Both compare the way a search does (case- and
    /// diacritic-insensitive, Unicode-normalised), and a line that matches several trips
    /// is refused with their ids rather than guessed.
    public func resolve(_ item: FavoriteDrop.Item) throws(TripsError) -> Trip.ID {
        switch item {
        case .id(let id):
            return id
        case .name(let line):
            return try only(trips.filter { $0.city.searchFolded == line.searchFolded }.map(\.id), named: line)
        case .sentence(let draft, let line):
            // The trip the sentence describes, in whichever language it was written; else a
            // city that happens to hold a colon and a comma.
            let (city, country, day) = (draft.city.searchFolded, draft.country.searchFolded, CivilDate(draft.start))
            let described = trips.filter { trip in
                trip.nights == draft.nights && CivilDate(trip.start) == day && trip.city.searchFolded == city
                    && trip.country.searchFolded == country
            }
            if !described.isEmpty { return try only(described.map(\.id), named: line) }
            return try only(trips.filter { $0.city.searchFolded == line.searchFolded }.map(\.id), named: line)
        }
    }

    /// The one trip of `matches`; a line that names none, or several, is refused.
    private func only(_ matches: [Trip.ID], named line: String) throws(TripsError) -> Trip.ID {
        guard let first = matches.first else { throw .noTripNamed(line) }
        guard matches.count == 1 else { throw .ambiguousName(line, candidates: matches) }
        return first
    }

    /// `ids` as a set, when every one of them is in the list.
    func existing(_ ids: [Trip.ID]) throws(TripsError) -> Set<Trip.ID> {
        var seen = Set<Trip.ID>()
        let unknown = ids.filter { seen.insert($0).inserted && positions[$0] == nil }
        guard unknown.isEmpty else { throw .unknownTrips(unknown) }
        return seen
    }

    /// Counts one change to the list, made to the trips `changed`.
    mutating func recordChange(of changed: [Trip.ID]) {
        revision += 1
        for id in changed { versions[id] = revision }
    }

    /// Rebuilds `positions` after the order changed.
    mutating func reindex() {
        positions = Dictionary(uniqueKeysWithValues: trips.enumerated().map { ($0.element.id, $0.offset) })
    }
}

extension Trip.Field {
    /// Whether a draft may leave this field out (it then takes its default).
    var isOptional: Bool {
        switch self {
        case .isFavorite, .imageName, .notes: true
        case .id, .city, .country, .nights, .price, .start: false
        }
    }
}
