/// The resources the API serves, parsed once from a request path.
enum Route: Sendable, Hashable {
    case trips
    case tripsReorder
    case tripsSort
    case trip(Int)
    case favorites
    case favorite(Int)
    case health
    case openAPI

    /// Every route's path template and methods, as `openapi.yaml` lists them (a test
    /// checks the two agree). `HEAD` goes with every `GET`; `OPTIONS` with every path.
    static let table: [(template: String, methods: [HTTPMethod])] = [
        ("/trips", [.get, .head, .post, .patch, .delete]),
        ("/trips/reorder", [.post]),
        ("/trips/sort", [.post]),
        ("/trips/{id}", [.get, .head, .put, .patch, .delete]),
        ("/favorites", [.get, .head, .patch, .post]),
        ("/favorites/{id}", [.put, .delete]),
        ("/health", [.get, .head]),
        ("/openapi.yaml", [.get, .head]),
    ]

    /// The route for a request path, or nil (404). Ids are positive decimal numbers.
    init?(path: String) {
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard segments.count >= 2, segments[0].isEmpty else { return nil }
        switch (segments.count, Substring(segments[1])) {
        case (2, "trips"): self = .trips
        case (2, "favorites"): self = .favorites
        case (2, "health"): self = .health
        case (2, "openapi.yaml"): self = .openAPI
        case (3, "trips") where Substring(segments[2]) == "reorder": self = .tripsReorder
        case (3, "trips") where Substring(segments[2]) == "sort": self = .tripsSort
        case (3, "trips"):
            guard let id = Self.id(segments[2]) else { return nil }
            self = .trip(id)
        case (3, "favorites"):
            guard let id = Self.id(segments[2]) else { return nil }
            self = .favorite(id)
        default:
            return nil
        }
    }

    /// The methods this route answers, with `OPTIONS`, for `Allow`.
    var allowedMethods: [HTTPMethod] {
        let template = switch self {
        case .trips: "/trips"
        case .tripsReorder: "/trips/reorder"
        case .tripsSort: "/trips/sort"
        case .trip: "/trips/{id}"
        case .favorites: "/favorites"
        case .favorite: "/favorites/{id}"
        case .health: "/health"
        case .openAPI: "/openapi.yaml"
        }
        let methods = Self.table.first { $0.template == template }?.methods ?? []
        return methods + [.options]
    }

    /// A trip id: digits only, no sign or leading zero, within `Int`.
    private static func id(_ segment: Substring.UTF8View.SubSequence) -> Int? {
        guard let first = segment.first, first != UInt8(ascii: "0"),
            segment.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(Substring(segment))
    }
}
