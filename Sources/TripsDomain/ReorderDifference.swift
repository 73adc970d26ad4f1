import TripsFormats

/// The body of a reorder (`PATCH /trips`): some trips, and where they go (in front of a
/// trip, or to the end). A difference, not the whole new order, so a client with a stale
/// view cannot drop trips it never saw; it is what a reorderable list hands over after a drag.
///
///     {"sources": [2, 5], "destination": {"before": 1}}
///     {"sources": [3], "destination": "end"}
public struct ReorderDifference: Sendable, Hashable {
    /// Where the moving trips land.
    public enum Destination: Sendable, Hashable {
        /// In front of this trip.
        case before(Trip.ID)
        /// After every other trip.
        case end
    }

    /// The ids of the trips to move. Their order here does not matter: moved trips keep
    /// the order they have in the list.
    public var sources: [Trip.ID]
    public var destination: Destination

    public init(sources: [Trip.ID], destination: Destination) {
        self.sources = sources
        self.destination = destination
    }

    /// Reads `{"sources": [...], "destination": {"before": id} | "end"}`.
    public init(json: JSONValue) throws(TripsError) {
        var members = try JSONMembers(json, describing: "a reorder difference")
        guard case .array(let sources) = try members.required("sources") as JSONValue else {
            throw .invalidMember("sources", "must be an array of trip ids")
        }
        self.sources = try sources.map { (value) throws(TripsError) in
            try JSONMembers.read(value, as: Int.self, member: "sources")
        }
        switch try members.required("destination") as JSONValue {
        case .string("end"):
            destination = .end
        case let object:
            var target = try JSONMembers(object, describing: #"destination (an object like {"before": 1}, or "end")"#)
            destination = .before(try target.required("before"))
            try target.rejectUnknown()
        }
        try members.rejectUnknown()
    }
}
