import TripsDomain

// Checks shared by the fuzz targets that change a list.

/// Applies a drop and checks what it did: exactly the dropped trips became favorites, and
/// `added` names those that were not, in list order.
public func checkDrop(_ drop: FavoriteDrop, on samples: TripList) {
    var list = samples
    guard let added = try? list.makeFavorites(drop) else {
        precondition(list == samples, "a refused drop changed the list")
        return
    }
    guard let resolved = try? samples.resolve(drop) else { preconditionFailure("a drop that was made does not resolve") }
    let dropped = Set(resolved)
    let expected = samples.trips.filter { dropped.contains($0.id) && !$0.isFavorite }.map(\.id)
    precondition(added == expected, "added \(added), expected \(expected)")
    precondition(list.trips.map(\.id) == samples.trips.map(\.id), "a drop moved or lost trips")
    for (trip, before) in zip(list.trips, samples.trips) {
        precondition(trip.isFavorite == (before.isFavorite || dropped.contains(trip.id)), "trip \(trip.id)")
        var unchanged = trip
        unchanged.isFavorite = before.isFavorite
        precondition(unchanged == before, "a drop changed more than isFavorite")
    }
    checkWhole(list)
}

/// The list's invariants: ids unique and positive, each found by its id, none above the last issued.
public func checkWhole(_ list: TripList) {
    let ids = list.trips.map(\.id)
    precondition(Set(ids).count == ids.count, "duplicate ids \(ids)")
    for trip in list.trips {
        precondition(trip.id > 0 && trip.id <= list.lastIssuedID, "id \(trip.id) out of range")
        precondition(list[trip.id] == trip, "trip \(trip.id) is not found by its id")
        precondition(list.version(of: trip.id) != nil, "trip \(trip.id) has no version")
    }
}
