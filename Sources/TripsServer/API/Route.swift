import TripsDomain
import TripsFormats
import TripsHTTP

/// The resources the API serves, parsed once from a request path.
enum Route: Sendable, Hashable {
    case root
    case asset(PageAsset)
    case trips
    case tripChanges
    case tripsReorder
    case tripsSort
    case trip(Int)
    case favorites
    case favorite(Int)
    case health
    case livez
    case readyz
    case metrics
    case openAPI

    /// Whether a GET shows the list or part of it, and so waits for a `Trips-Revision` its
    /// client asks for (read your writes). Probes, metrics, the spec, assets and the redirect
    /// answer at once; the change feed resumes by its own revision.
    var showsTheList: Bool {
        switch self {
        case .trips, .trip, .favorites: true
        case .root, .asset, .tripChanges, .tripsReorder, .tripsSort, .favorite, .health, .livez, .readyz, .metrics, .openAPI: false
        }
    }

    /// What one path template answers: its methods and, per method that takes a body, the
    /// media types it reads.
    struct Endpoint: Sendable {
        let template: String
        let methods: [HTTPMethod]
        let bodies: [HTTPMethod: [MediaType]]
    }

    /// Every route, as `openapi.yaml` lists them (a test checks the two agree): the one place
    /// a path, a method or a body type is added. `Allow`, `Accept-Post` and `Accept-Patch`
    /// are derived from it. `HEAD` goes with every `GET`; `OPTIONS` with every path.
    static let table: [Endpoint] = [
        Endpoint(
            template: "/trips", methods: [.get, .head, .post, .patch, .delete],
            bodies: [.post: NewTrips.importMediaTypes, .patch: ReorderDifference.importMediaTypes]),
        Endpoint(template: "/trips/changes", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/trips/reorder", methods: [.post], bodies: [.post: ReorderDifference.importMediaTypes]),
        Endpoint(template: "/trips/sort", methods: [.post], bodies: [.post: TripSortKey.importMediaTypes]),
        Endpoint(
            template: "/trips/{id}", methods: [.get, .head, .put, .patch, .delete],
            bodies: [.put: [.json], .patch: [.mergePatchJSON, .json]]),
        Endpoint(
            template: "/favorites", methods: [.get, .head, .patch, .post],
            bodies: [.post: FavoriteDrop.importMediaTypes, .patch: FavoriteDrop.importMediaTypes]),
        Endpoint(template: "/favorites/{id}", methods: [.put, .delete], bodies: [:]),
        Endpoint(template: "/health", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/livez", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/readyz", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/metrics", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/openapi.yaml", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/assets/trips.css", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/assets/trips.js", methods: [.get, .head], bodies: [:]),
        Endpoint(template: "/assets/trips.svg", methods: [.get, .head], bodies: [:]),
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
            if first.isEmpty { return .root }
            if first.equals("trips") { return .trips }
            if first.equals("favorites") { return .favorites }
            if first.equals("health") { return .health }
            if first.equals("livez") { return .livez }
            if first.equals("readyz") { return .readyz }
            if first.equals("metrics") { return .metrics }
            if first.equals("openapi.yaml") { return .openAPI }
            return nil
        }
        let second = UnsafeRawBufferPointer(rebasing: rest[(slash + 1)...])
        guard !second.contains(UInt8(ascii: "/")) else { return nil }
        if first.equals("trips") {
            if second.equals("reorder") { return .tripsReorder }
            if second.equals("changes") { return .tripChanges }
            if second.equals("sort") { return .tripsSort }
            return id(second).map(Route.trip)
        }
        if first.equals("favorites") { return id(second).map(Route.favorite) }
        if first.equals("assets") { return PageAsset.allCases.first { second.equals($0.fileName) }.map(Route.asset) }
        return nil
    }

    /// This route's path template, as the table and the spec write it.
    var template: String {
        switch self {
        case .trips: "/trips"
        case .tripChanges: "/trips/changes"
        case .tripsReorder: "/trips/reorder"
        case .tripsSort: "/trips/sort"
        case .trip: "/trips/{id}"
        case .favorites: "/favorites"
        case .favorite: "/favorites/{id}"
        case .health: "/health"
        case .livez: "/livez"
        case .readyz: "/readyz"
        case .metrics: "/metrics"
        case .openAPI: "/openapi.yaml"
        case .root: "/"
        case .asset(let asset): asset.path
        }
    }

    /// Where this route's entry stands in the table (a test checks it matches `template`).
    var tableIndex: Int {
        switch self {
        case .trips: 0
        case .tripChanges: 1
        case .tripsReorder: 2
        case .tripsSort: 3
        case .trip: 4
        case .favorites: 5
        case .favorite: 6
        case .health: 7
        case .livez: 8
        case .readyz: 9
        case .metrics: 10
        case .openAPI: 11
        case .root: 12
        case .asset(.stylesheet): 13
        case .asset(.script): 14
        case .asset(.icon): 15
        }
    }

    /// This route's entry in the table.
    var endpoint: Endpoint {
        Self.table[tableIndex]
    }

    /// The methods this route answers, with `OPTIONS`, for `Allow`.
    var allowedMethods: [HTTPMethod] {
        endpoint.methods + [.options]
    }

    /// The media types `method` reads here as a body; empty when it takes none.
    func bodyTypes(for method: HTTPMethod) -> [MediaType] {
        endpoint.bodies[method] ?? []
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
