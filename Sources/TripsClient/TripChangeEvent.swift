import TripsDomain
import TripsFormats

/// One change to the list, as the change feed tells it (`GET /trips/changes`), read into
/// the domain's values: a client holding the list applies it without reading the list again.
public enum TripChangeEvent: Sendable, Hashable {
    /// New trips, in front of `before` (nil: at the end).
    case created(revision: UInt64, trips: [Trip], before: Trip.ID?)
    /// A trip replaced, patched, or given or relieved of its photo.
    case updated(revision: UInt64, trip: Trip)
    case deleted(revision: UInt64, ids: [Trip.ID])
    /// A reorder, applied by the rule of `PATCH /trips`.
    case reordered(revision: UInt64, difference: ReorderDifference)
    /// The stored list sorted: `order` is every id, in the new order.
    case sorted(revision: UInt64, by: TripSortKey, order: [Trip.ID])
    /// Trips that became favorites, or stopped being ones.
    case favorites(revision: UInt64, added: [Trip.ID], removed: [Trip.ID])
    /// The changes up to `revision` cannot be told one by one: read the list again.
    case reset(revision: UInt64)

    public var revision: UInt64 {
        switch self {
        case .created(let revision, _, _), .updated(let revision, _), .deleted(let revision, _), .reordered(let revision, _),
            .sorted(let revision, _, _), .favorites(let revision, _, _), .reset(let revision):
            revision
        }
    }

    /// The trips whose content the change made new (a reorder or a sort changes none).
    var changedTrips: [Trip.ID] {
        switch self {
        case .created(_, let trips, _): trips.map(\.id)
        case .updated(_, let trip): [trip.id]
        case .deleted(_, let ids): ids
        case .favorites(_, let added, let removed): added + removed
        case .reordered, .sorted, .reset: []
        }
    }

    /// The events this client reads; any other (a newer server's) is skipped.
    private static let names: Set<String> = ["created", "updated", "deleted", "reordered", "sorted", "favorites", "reset"]

    /// Reads an event's name and its one line of JSON; nil for an event this client does not
    /// know (a newer server's), which a follower skips.
    public init?(name: String, data: [UInt8]) throws(TripsClientError) {
        guard Self.names.contains(name) else { return nil }  // whatever its data holds
        guard case .object(var members) = try? JSONValue(parsing: data),
            case .number(let literal)? = members.removeValue(forKey: "revision"),
            let revision = UInt64(literal)
        else { throw .invalidAnswer("a \(name) event without its revision") }
        func ids(_ name: String) throws(TripsClientError) -> [Trip.ID] {
            guard case .array(let values)? = members[name] else { throw .invalidAnswer("the event has no \(name)") }
            var ids: [Trip.ID] = []
            for value in values {
                guard case .number(let literal) = value, let id = Int(literal) else { throw .invalidAnswer("\(name) holds a non-id") }
                ids.append(id)
            }
            return ids
        }
        switch name {
        case "created":
            guard let trips = members["trips"] else { throw .invalidAnswer("a created event without trips") }
            let before: Trip.ID? = if case .number(let id)? = members["before"] { Int(id) } else { nil }
            self = .created(revision: revision, trips: try TripsClient.trips(trips), before: before)
        case "updated":
            guard let trip = members["trip"] else { throw .invalidAnswer("an updated event without its trip") }
            self = .updated(revision: revision, trip: try TripsClient.trip(trip))
        case "deleted":
            self = .deleted(revision: revision, ids: try ids("ids"))
        case "reordered":
            do {
                self = .reordered(revision: revision, difference: try ReorderDifference(json: .object(members)))
            } catch {
                throw .invalidAnswer("a reordered event: \(error)")
            }
        case "sorted":
            guard case .string(let by)? = members["by"], let key = TripSortKey(rawValue: by) else {
                throw .invalidAnswer("a sorted event without its key")
            }
            self = .sorted(revision: revision, by: key, order: try ids("order"))
        case "favorites":
            self = .favorites(revision: revision, added: try ids("added"), removed: try ids("removed"))
        case "reset":
            self = .reset(revision: revision)
        default:
            return nil
        }
    }
}
