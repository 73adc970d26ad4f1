import Foundation
import TripsFormats

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

    public let items: [Item]
    /// What each item looks up, in the items' order, folded once as the drop is read: outside
    /// the store's lock, where `TripList.resolve` runs.
    package let lookups: [Lookup]
    /// Every folded name a line may match a city by.
    package let names: Set<String>
    /// Every trip a sentence describes, and the cities they are in.
    package let descriptions: Set<Description>
    package let describedCities: Set<String>

    public init(items: [Item]) {
        self.items = items
        lookups = items.map(Lookup.init)
        var names = Set<String>()
        var descriptions = Set<Description>()
        for lookup in lookups {
            switch lookup {
            case .id: break
            case .name(_, let name):
                names.insert(name)
            case .sentence(_, let description, let name):
                names.insert(name)
                descriptions.insert(description)
            }
        }
        self.names = names
        self.descriptions = descriptions
        describedCities = Set(descriptions.map(\.city))
    }

    /// One item as `TripList.resolve` looks it up.
    package enum Lookup: Sendable, Hashable {
        case id(Trip.ID)
        /// The line, and its folded form.
        case name(line: String, name: String)
        /// The line, the trip its sentence describes, and the line folded (a city with a colon).
        case sentence(line: String, Description, name: String)

        package init(_ item: Item) {
            switch item {
            case .id(let id): self = .id(id)
            case .name(let line): self = .name(line: line, name: line.searchFolded)
            case .sentence(let draft, let line): self = .sentence(line: line, Description(draft), name: line.searchFolded)
            }
        }
    }

    /// What a sentence says of a trip, as a search compares it: a trip matches when all four agree.
    package struct Description: Sendable, Hashable {
        package let city: String
        package let country: String
        package let nights: Int
        package let day: CivilDate

        package init(_ draft: TripDraft) {
            city = draft.city.searchFolded
            country = draft.country.searchFolded
            nights = draft.nights
            day = CivilDate(draft.start)
        }

        /// A trip's, from the words the list keeps folded.
        package init(_ trip: Trip, text: TripSearchText) {
            city = text.city
            country = text.country
            nights = trip.nights
            day = CivilDate(trip.start)
        }
    }

    /// Reads a JSON array of trip objects (only their `id` counts) or of ids, or one trip
    /// object alone (the body of `GET /trips/3`), which is a drop of one.
    public init(json: JSONValue) throws(TripsError) {
        switch json {
        case .array(let elements):
            self.init(items: try elements.map(Self.item))
        case .object:
            self.init(items: [try Self.item(json)])
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
        self.init(
            items: text.split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
                .map { line in (try? TripDraft(sentence: line, language: language)).map { .sentence($0, line: line) } ?? .name(line) })
    }
}
