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
    ///
    /// Matches the path's bytes in place: no array of segments, no substrings (this runs on
    /// every request).
    init?(path: String) {
        var path = path
        guard let route = path.withUTF8({ Self.match($0) }) else { return nil }
        self = route
    }

    private static func match(_ path: UnsafeBufferPointer<UInt8>) -> Route? {
        guard path.first == UInt8(ascii: "/") else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(path)[1...])
        let slash = rest.firstIndex(of: UInt8(ascii: "/"))
        let first = UnsafeRawBufferPointer(rebasing: rest[..<(slash ?? rest.endIndex)])
        guard let slash else {
            if first.equals("trips") { return .trips }
            if first.equals("favorites") { return .favorites }
            if first.equals("health") { return .health }
            if first.equals("openapi.yaml") { return .openAPI }
            return nil
        }
        let second = UnsafeRawBufferPointer(rebasing: rest[(slash + 1)...])
        guard !second.contains(UInt8(ascii: "/")) else { return nil }
        if first.equals("trips") {
            if second.equals("reorder") { return .tripsReorder }
            if second.equals("sort") { return .tripsSort }
            return id(second).map(Route.trip)
        }
        if first.equals("favorites") { return id(second).map(Route.favorite) }
        return nil
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
    private static func id(_ segment: UnsafeRawBufferPointer) -> Int? {
        guard let first = segment.first, first != UInt8(ascii: "0") else { return nil }
        var value = 0
        for byte in segment {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
            guard !overflow1 && !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
