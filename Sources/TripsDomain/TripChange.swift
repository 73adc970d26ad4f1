/// One change to the list, resolved to the form that replays the same way every time.
///
/// The server turns each request into a change (a merge patch becomes `replace`, a toggle
/// becomes `setFavorite`, dropped names become ids), applies it, and the journal records
/// it; recovery applies the same changes again, in order, and gets the same list.
public enum TripChange: Sendable, Hashable {
    /// New trips, in order, in front of a trip or (nil) at the end.
    case add([TripDraft], before: Trip.ID?)
    case delete([Trip.ID])
    case replace(Trip.ID, TripDraft)
    case setFavorite(Trip.ID, Bool)
    case move(ReorderDifference)
    case makeFavorites([Trip.ID])
    case sort(TripSortKey)
    /// A trip's photo set (its bytes are already with the store) or cleared (nil).
    case setPhoto(Trip.ID, TripPhoto?)
}

extension TripChange {
    /// One new trip at the end.
    public static func add(_ draft: TripDraft) -> TripChange { .add([draft], before: nil) }
}

/// What applying a change did, for the response.
public enum TripChangeOutcome: Sendable, Hashable {
    /// The trip as it now is (replace, setFavorite, setPhoto).
    case trip(Trip)
    /// The new trips, in order (add).
    case added([Trip])
    /// The trips that newly became favorites; empty when none did.
    case addedFavorites([Trip.ID])
    /// Whether the order changed (move, sort), or trips were deleted.
    case listChanged(Bool)
}

extension TripList {
    /// Applies one change, all or nothing.
    @discardableResult
    public mutating func apply(_ change: TripChange) throws(TripsError) -> TripChangeOutcome {
        switch change {
        case .add(let drafts, let before): .added(try add(drafts, before: before))
        case .delete(let ids): .listChanged(try delete(ids))
        case .replace(let id, let draft): .trip(try replace(id, with: draft))
        case .setFavorite(let id, let isFavorite): .trip(try setFavorite(id, isFavorite))
        case .move(let difference): .listChanged(try move(difference))
        case .makeFavorites(let ids): .addedFavorites(try makeFavorites(FavoriteDrop(items: ids.map(FavoriteDrop.Item.id))))
        case .sort(let key): .listChanged(sort(by: key))
        case .setPhoto(let id, let photo): .trip(try setPhoto(id, photo))
        }
    }
}

extension TripList {
    /// Applies `change` as another copy of this list, at this revision, applied it and answered
    /// `outcome`: a store keeps two copies of its list, and the second takes the trips the first
    /// made (an add's, a replace's) instead of checking drafts and making them again; it shares
    /// their strings, too. The trips are taken as made there (debug builds check them); an
    /// outcome that does not fit the change (other ids, another trip) is not taken, and any
    /// other change is applied afresh.
    ///
    /// `leader`, that other copy (it may be further on): an added trip it still holds as added
    /// (the entry's version is this change's revision) is taken with its search text, which is
    /// then not folded a second time.
    @discardableResult
    package mutating func apply(
        _ change: TripChange, as outcome: TripChangeOutcome, following leader: TripList? = nil
    ) throws(TripsError) -> TripChangeOutcome {
        switch (change, outcome) {
        case (.add(let drafts, let before), .added(let trips)):
            let isNext = trips.count == drafts.count && trips.enumerated().allSatisfy { $1.id == lastIssuedID + 1 + $0 }
            guard !trips.isEmpty, isNext, before.map(contains) ?? true else { return try apply(change) }
            assert(zip(drafts, trips).allSatisfy { Trip(id: $1.id, draft: $0) == $1 }, "an add's trips are not its drafts'")
            insert(trips, before: before, following: leader)
        case (.replace(let id, let draft), .trip(let trip)):
            guard trip.id == id, let current = self[id] else { return try apply(change) }
            assert(trip == Trip(id: id, draft: draft, photo: current.photo), "a replace's trip is not its draft's")
            update(id) { $0 = trip }
        default:
            // Nothing to save elsewhere: a favorite or a photo sets one field of the trip there is.
            return try apply(change)
        }
        return outcome
    }
}
