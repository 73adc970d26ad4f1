import Foundation

/// The body of a favorite drop (`POST /favorites`): the trips to make favorites, by id (from
/// JSON) or by name (from text, one trip per line: its city or its sentence). In the lesson's
/// app this is what a drag carries onto the Favorites chip.
public struct FavoriteDrop: Sendable, Hashable {
    /// One dropped trip, before the list resolves it.
    public enum Item: Sendable, Hashable {
        case id(Trip.ID)
        /// A line of text that is no sentence: a city's name.
        case name(String)
        /// A line of text that is a trip's sentence (in any language), read into its fields.
        case sentence(TripDraft, line: String)
    }

    public var items: [Item]

    public init(items: [Item]) {
        self.items = items
    }

    /// Reads a JSON array of trip objects (only their `id` counts) or of ids, or one trip
    /// object alone (the body of `GET /trips/3`), which is a drop of one.
    public init(json: JSONValue) throws(TripsError) {
        switch json {
        case .array(let elements):
            items = try elements.map(Self.item)
        case .object:
            items = [try Self.item(json)]
        default:
            throw .invalidBody("a favorite drop must be a trip, or a JSON array of trips or of trip ids, not \(json.kindName)")
        }
    }

    private static func item(_ element: JSONValue) throws(TripsError) -> Item {
        switch element {
        case .number:
            return .id(try JSONMembers.read(element, as: Int.self, member: "id"))
        case .object(let members):
            guard let id = members[Trip.Field.id.rawValue] else {
                throw .invalidMember("id", "each dropped trip needs its id")
            }
            return .id(try JSONMembers.read(id, as: Int.self, member: "id"))
        default:
            throw .invalidBody("a dropped item must be a trip or a trip id, not \(element.kindName)")
        }
    }

    /// Reads text with one trip per line, its sentence (in `language`, or any) or its city;
    /// blank lines are skipped.
    public init(text: String, language: Language? = nil) {
        items = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .map { line in (try? TripDraft(sentence: line, language: language)).map { .sentence($0, line: line) } ?? .name(line) }
    }
}
