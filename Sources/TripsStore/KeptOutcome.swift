import TripsDomain

/// What a change did, by id (`TripChangeOutcome` without the trips): enough to answer a retry
/// from the list as it is later.
package enum KeptOutcome: Sendable, Equatable {
    /// One trip: created, replaced, made a favorite or not.
    case trip(Trip.ID)
    /// Several trips created, in order.
    case added([Trip.ID])
    /// The trips a drop made favorites.
    case addedFavorites([Trip.ID])
    /// A sort, reorder or delete: whether the list changed.
    case listChanged(Bool)
    /// The plan found nothing to do.
    case nothing

    package init(_ outcome: TripChangeOutcome?) {
        switch outcome {
        case .trip(let trip)?: self = .trip(trip.id)
        case .added(let trips)?: self = .added(trips.map(\.id))
        case .addedFavorites(let ids)?: self = .addedFavorites(ids)
        case .listChanged(let changed)?: self = .listChanged(changed)
        case nil: self = .nothing
        }
    }

    /// The outcome as `list` now shows it: the trips as they are now, those deleted since
    /// left out; nil when every trip it names was deleted since (and for `nothing`).
    package func outcome(in list: TripList) -> TripChangeOutcome? {
        switch self {
        case .trip(let id): list[id].map { .trip($0) }
        case .added(let ids):
            ids.contains(where: list.contains) ? .added(ids.compactMap { list[$0] }) : nil
        case .addedFavorites(let ids): .addedFavorites(ids)
        case .listChanged(let changed): .listChanged(changed)
        case .nothing: nil
        }
    }

    package var byteCount: Int {
        switch self {
        case .trip: 8
        case .added(let ids), .addedFavorites(let ids): 8 * ids.count
        case .listChanged, .nothing: 1
        }
    }
}
