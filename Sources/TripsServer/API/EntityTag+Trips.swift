import TripsDomain

extension EntityTag {
    /// A trip's representation: differs per media type, changes whenever the trip does.
    static func trip(_ id: Trip.ID, version: UInt64, _ mediaType: MediaType) -> EntityTag {
        EntityTag("trip-\(id)-v\(version)-\(mediaType.subtype)")
    }

    /// A list's (or a view's) representation: changes whenever the list, its order or any trip does.
    static func list(revision: UInt64, _ mediaType: MediaType) -> EntityTag {
        EntityTag("list-r\(revision)-\(mediaType.subtype)")
    }

    /// The tags of every current representation of a trip; empty when the list lacks it.
    static func allTrip(_ id: Trip.ID, in list: TripList) -> [EntityTag] {
        guard let version = list.version(of: id) else { return [] }
        return ReadForm<Trip>.mediaTypes.map { trip(id, version: version, $0) }
    }

    /// The tags of every current representation of the list.
    static func allList(_ list: TripList) -> [EntityTag] {
        ReadForm<[Trip]>.mediaTypes.map { self.list(revision: list.revision, $0) }
    }
}
