import Glibc
import TripsDomain
import TripsFormats
import TripsHTTP

/// The routes grouped by path template, and the one a request's method and path reach.
///
/// Built once from a list of routes; it refuses (traps on) a list that routes a method and
/// path twice, a handler whose parameter is not its template's (`{id}`, `{photo}`, `{kind}` or none),
/// or a literal segment that is also an id, so the table is checked as the process starts.
/// Paths are matched segment by segment in a trie: a path reaches at most one template, and
/// matching a path without a photo name allocates nothing (it runs on every request).
struct RouteTable: Sendable {
    /// Every template, in the order of its first route.
    let resources: [Resource]
    /// What the metrics count requests by: each template at its resource's `label`, then
    /// "other" for what no template matches (404s, `OPTIONS *`).
    let labels: [String]
    /// The trie of templates by segment; the first node is the root, before the first `/`.
    /// Plain values all through (edges index into one array of bytes), so walking it costs
    /// no reference counting.
    private let nodes: [Node]
    private let edges: [Edge]
    private let segmentBytes: [UInt8]

    /// What one path template answers: its routes and where its metric label stands. A class:
    /// a match passes it on without copying its routes.
    final class Resource: Sendable {
        let template: String
        /// Its place among the table's templates: the index of its metric label.
        let label: Int
        /// One per method, in the order the table lists them.
        let routes: [Route]
        /// The route for each of `HTTPMethod.known`, by `knownIndex` (`HEAD`: `GET`'s), so
        /// finding it compares one method, not one per route.
        private let routeByKnownIndex: [Route?]

        init(template: String, label: Int, routes: [Route]) {
            self.template = template
            self.label = label
            self.routes = routes
            routeByKnownIndex = HTTPMethod.known.map { known in
                let method = known == .head ? .get : known
                return routes.first { $0.method == method }
            }
        }

        /// The methods answered here, for `Allow`: the routes', `HEAD` after `GET`, and
        /// `OPTIONS`, which every path answers.
        var allowedMethods: [HTTPMethod] {
            routes.flatMap { $0.method == .get ? [.get, .head] : [$0.method] } + [.options]
        }

        /// The route that answers `method` here (`HEAD` is answered as `GET`), or nil.
        func route(for method: HTTPMethod) -> Route? {
            routeByKnownIndex[method.knownIndex]
        }

        /// The media types `method` reads here as a body; empty when it takes none.
        func bodyTypes(for method: HTTPMethod) -> [MediaType] {
            route(for: method)?.bodyTypes ?? []
        }
    }

    /// The kinds of path parameter a template may hold, one at most.
    enum Parameter: String, Sendable, CaseIterable {
        case tripID = "{id}"
        case photoName = "{photo}"
        case problemType = "{kind}"
    }

    /// What a path holds under its template's parameter: plain values, so that a match is
    /// copied and dropped without reference counting beyond its resource and route.
    enum Argument: Sendable, Hashable {
        case tripID(Trip.ID)
        case photoName(PhotoName)
        /// The kind's place in `ProblemType.all`.
        case problemType(indexInAll: Int)
    }

    /// A request's place in the table.
    ///
    /// It refers to its resource and route without counting references (a GET copied and
    /// dropped its match often enough for that to be 2.5% of its instructions): the table
    /// keeps every resource, and so every route, for the life of the process (`init`), so no
    /// match outlives them.
    struct Match: Sendable {
        unowned(unsafe) let resource: Resource
        /// What the path holds under `{id}`, `{photo}` or `{kind}`; nil when the template has none.
        let argument: Argument?
        /// The route for the request's method; nil when the resource answers it only as
        /// `OPTIONS` or not at all (405).
        unowned(unsafe) let route: Route?
    }

    private struct Node: Sendable {
        /// Where its edges to literal segments stand in `edges`.
        var edges: Range<Int>
        /// The node under `{id}`, tried when no literal matches.
        var id: Int?
        /// The node under `{photo}`, tried when no literal or id matches.
        var photo: Int?
        /// The node under `{kind}`, tried last: a kind of problem's name.
        var kind: Int?
        /// The resource whose template ends here.
        var resource: Int?
    }

    /// A literal segment (its bytes in `segmentBytes`) and the node it leads to.
    private struct Edge: Sendable {
        var segment: Range<Int>
        var node: Int
    }

    /// A node as the table is built.
    private struct GrowingNode {
        var literals: [(segment: [UInt8], node: Int)] = []
        var id: Int?
        var photo: Int?
        var kind: Int?
        var resource: Int?
    }

    init(_ routes: [Route]) {
        var templates: [String] = []
        var routesByTemplate: [String: [Route]] = [:]
        for route in routes {
            if routesByTemplate[route.template] == nil { templates.append(route.template) }
            precondition(
                routesByTemplate[route.template, default: []].allSatisfy { $0.method != route.method },
                "\(route.method) \(route.template) is routed twice")
            precondition(
                route.parameter == Parameter.allCases.first { route.template.contains($0.rawValue) },
                "\(route.method) \(route.template): a handler takes the parameter its template has")
            routesByTemplate[route.template, default: []].append(route)
        }
        var nodes = [GrowingNode()]
        for (label, template) in templates.enumerated() {
            precondition(template.hasPrefix("/"), "\(template) does not start with /")
            let segments = template.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            precondition(segments.count { $0.hasPrefix("{") } <= 1, "\(template): a match holds one parameter")
            var node = 0
            for segment in segments {
                if let parameter = Parameter(rawValue: String(segment)) {
                    let child =
                        switch parameter {
                        case .tripID: \GrowingNode.id
                        case .photoName: \GrowingNode.photo
                        case .problemType: \GrowingNode.kind
                        }
                    if nodes[node][keyPath: child] == nil {
                        nodes.append(GrowingNode())
                        nodes[node][keyPath: child] = nodes.count - 1
                    }
                    node = nodes[node][keyPath: child]!
                    continue
                }
                precondition(!segment.contains("{"), "\(template): {id}, {photo} and {kind} are the only parameters")
                let bytes = Array(segment.utf8)
                precondition(bytes.withUnsafeBytes { Self.id($0) } == nil, "\(template): \(segment) would also be an id")
                if let next = nodes[node].literals.first(where: { $0.segment == bytes })?.node {
                    node = next
                } else {
                    nodes.append(GrowingNode())
                    nodes[node].literals.append((bytes, nodes.count - 1))
                    node = nodes.count - 1
                }
            }
            nodes[node].resource = label
        }
        var edges: [Edge] = []
        var segmentBytes: [UInt8] = []
        self.nodes = nodes.map { node in
            let first = edges.count
            for (segment, next) in node.literals {
                edges.append(Edge(segment: segmentBytes.count..<segmentBytes.count + segment.count, node: next))
                segmentBytes += segment
            }
            return Node(edges: first..<edges.count, id: node.id, photo: node.photo, kind: node.kind, resource: node.resource)
        }
        self.edges = edges
        self.segmentBytes = segmentBytes
        resources = templates.enumerated().map { label, template in
            Resource(template: template, label: label, routes: routesByTemplate[template] ?? [])
        }
        // Kept for good, whatever becomes of the table: what `Match` relies on. The table is
        // made once (`TripsAPI.routes`, a constant of the process, which holds them anyway),
        // so this holds a few dozen objects, and no more. (A table made and dropped, as a
        // test of this once did, leaves them unreachable: LeakSanitizer says so.)
        for resource in resources { _ = Unmanaged.passRetained(resource) }
        labels = templates + ["other"]
    }

    /// Where `method` on `path` goes, or nil when no template matches the path (404).
    /// Ids are positive decimal numbers within `Int`: no sign, no leading zero.
    func match(_ method: HTTPMethod, _ path: String) -> Match? {
        var path = path
        guard let (resource, argument) = path.withUTF8({ match(UnsafeRawBufferPointer($0)) }) else { return nil }
        let matched = resources[resource]
        return Match(resource: matched, argument: argument, route: matched.route(for: method))
    }

    /// Walks the trie over the path's bytes in place: no array of segments, no substrings.
    private func match(_ path: UnsafeRawBufferPointer) -> (resource: Int, argument: Argument?)? {
        nodes.withUnsafeBufferPointer { nodes in
            edges.withUnsafeBufferPointer { edges in
                segmentBytes.withUnsafeBytes { segmentBytes in
                    Self.walk(path, nodes: nodes, edges: edges, segmentBytes: segmentBytes)
                }
            }
        }
    }

    private static func walk(
        _ path: UnsafeRawBufferPointer, nodes: UnsafeBufferPointer<Node>, edges: UnsafeBufferPointer<Edge>,
        segmentBytes: UnsafeRawBufferPointer
    ) -> (resource: Int, argument: Argument?)? {
        guard path.first == UInt8(ascii: "/") else { return nil }
        var node = 0
        var argument: Argument?
        var start = 1
        while true {
            let end = path[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.endIndex
            let segment = UnsafeRawBufferPointer(rebasing: path[start..<end])
            var next: Int?
            for edge in nodes[node].edges where same(segmentBytes[edges[edge].segment], segment) {
                next = edges[edge].node
                break
            }
            if let next {
                node = next
            } else if let next = nodes[node].id, let value = Self.id(segment) {
                node = next
                argument = .tripID(value)
            } else if let next = nodes[node].photo, let name = PhotoName(segment) {
                node = next
                argument = .photoName(name)
            } else if let next = nodes[node].kind, let index = ProblemType.indexInAll(named: segment) {
                node = next
                argument = .problemType(indexInAll: index)
            } else {
                return nil
            }
            guard end < path.endIndex else { break }
            start = end + 1
        }
        return nodes[node].resource.map { ($0, argument) }
    }

    /// Whether a literal segment is these bytes: a length check and one `memcmp`.
    private static func same(_ literal: Slice<UnsafeRawBufferPointer>, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard literal.count == bytes.count else { return false }
        guard let base = literal.base.baseAddress, let other = bytes.baseAddress else { return bytes.isEmpty }
        return memcmp(base + literal.startIndex, other, bytes.count) == 0
    }

    /// A trip id: digits only, no sign or leading zero, within `Int`.
    private static func id(_ segment: UnsafeRawBufferPointer) -> Int? {
        segment.first == UInt8(ascii: "0") ? nil : decimalValue(segment)
    }
}
