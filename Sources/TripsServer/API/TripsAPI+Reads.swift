import TripsDomain
import TripsFormats
import TripsHTTP
import TripsStore

/// Endpoints that only read: `GET` and `HEAD` (the connection drops a `HEAD` body).
extension TripsAPI {
    /// `GET /trips`: the list, or a view of it (`filter`, `country`, `q`, `sort`), or a page
    /// of either (`limit`, `after`). The browser page shows a page of 200 when no `limit` is given.
    func listTrips(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var items = request.queryItems
        let asked = try Pagination(taking: &items)
        let query = try TripQuery(queryItems: items)
        let form = try negotiateRead([Trip].self, for: request)
        let list = store.list
        let etag = EntityTag.list(revision: list.revision, form.mediaType, form.language)
        let isPrivate = caching.isPrivate(request)
        if let notModified = try notModified(request, current: etag, language: form.language, isPrivate: isPrivate, isPaged: asked.isPaged)
        {
            return notModified
        }
        // Made only when the answer is: a hit of the whole list's cached one needs none of it.
        func read(target: ViewRead.Target) -> ViewRead {
            ViewRead(request: request, target: target, list: list, query: query, asked: asked, form: form, etag: etag, isPrivate: isPrivate)
        }
        guard !query.isEverything || asked.isPaged else {
            // Made once per revision: the whole list, or the page's first rows. Its links name
            // the plain path, which every request it answers means.
            let slot = caching.slot(form.cacheSlot, isPrivate: isPrivate)
            return cache.list(revision: list.revision, slot: slot, coding: ResponseCompression.coding(for: request)) {
                let read = read(target: ("/trips", nil))
                let (trips, nextAfter) = read.paging.firstPage(of: list)
                return representView(trips, totals: list.totals, nextAfter: nextAfter, read)
            }
        }
        let read = read(target: (request.path, request.query))
        return try cache.view(viewKey(read), revision: list.revision, coding: ResponseCompression.coding(for: request)) {
            () throws(APIError) in
            guard !query.isEverything else {
                let (trips, nextAfter) = try read.paging.slice(list)
                return representView(trips, totals: list.totals, nextAfter: nextAfter, read)
            }
            let view = list.trips.matching(query)
            let (trips, nextAfter) = try read.paging.slice(view)
            return representView(trips, totals: TripTotals(view), nextAfter: nextAfter, read)
        }
    }

    /// `GET /favorites`: the favorites, in list order, or a page of them (`limit`, `after`).
    func listFavorites(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var items = request.queryItems
        let asked = try Pagination(taking: &items)
        if let item = items.first { throw APIError(.badRequest, "\(item.name): is not a parameter of /favorites (limit, after)") }
        let form = try negotiateRead([Trip].self, for: request)
        let list = store.list
        let etag = EntityTag.list(revision: list.revision, form.mediaType, form.language)
        let isPrivate = caching.isPrivate(request)
        if let notModified = try notModified(request, current: etag, language: form.language, isPrivate: isPrivate, isPaged: asked.isPaged)
        {
            return notModified
        }
        let query = TripQuery(filter: .favorites)
        let read = ViewRead(
            request: request, target: (request.path, request.query), list: list, query: query, asked: asked, form: form, etag: etag,
            isPrivate: isPrivate)
        return try cache.view(viewKey(read), revision: list.revision, coding: ResponseCompression.coding(for: request)) {
            () throws(APIError) in
            let view = list.trips.matching(query)
            let (trips, nextAfter) = try read.paging.slice(view)
            return representView(trips, totals: TripTotals(view), nextAfter: nextAfter, read)
        }
    }

    /// Where a view's answer is kept for its revision: made once, then served to every
    /// client that asks for it the same way until the next change.
    private func viewKey(_ read: ViewRead) -> RepresentationCache.ViewKey {
        RepresentationCache.ViewKey(
            path: read.target.path, query: read.target.query, slot: caching.slot(read.form.cacheSlot, isPrivate: read.isPrivate),
            countsExactly: read.asked.isPaged && read.request.prefersExactCount)
    }

    /// The trips of a view (a page of it, with `Link` to the next one while more follow, and
    /// to the first when the client asked for a page), or the list page showing them with the
    /// `totals` of the whole view, counted only for a page, or for `Prefer: count=exact` on a
    /// paged read (`Trips-Total`).
    private func representView(_ trips: [Trip], totals: @autoclosure () -> TripTotals, nextAfter: Trip.ID?, _ read: ViewRead)
        -> HTTPResponse
    {
        let target = read.target
        let next = nextAfter.map { Pagination.nextURL(path: target.path, query: target.query, after: $0) }
        var response: HTTPResponse
        switch read.form {
        case .representation(let chosen):
            // JSON, what nearly every client reads, is put together from each trip's kept object.
            let json = chosen.representation.mediaType == .json ? cache.tripJSON.array(of: trips, in: read.list) : nil
            response = represent(trips, as: chosen, etag: read.etag, revision: read.list.revision, exported: json)
        case .page(let language):
            let page = TripsListPage(
                trips: trips, list: read.list, query: read.query, totals: totals(), page: read.paging, nextPage: next, language: language,
                cache: cache)
            response = representPage(page.render(), etag: read.etag, revision: read.list.revision, language: language)
        }
        let isPaged = read.asked.isPaged
        caching.describe(&response.headerFields, language: read.form.language, isPrivate: read.isPrivate, isPaged: isPaged)
        var links = next.map { ["<\($0)>; rel=\"next\""] } ?? []
        if isPaged {
            links.append("<\(Pagination.firstURL(path: target.path, query: target.query))>; rel=\"first\"")
            if read.request.prefersExactCount {
                response.headerFields[.tripsTotal] = String(totals().trips)
                response.headerFields[.preferenceApplied] = "count=exact"
            }
        }
        if target.path == "/trips" { links.append(Self.serviceDescriptionLink) }
        if !links.isEmpty { response.headerFields[.link] = links.joined(separator: ", ") }
        return response
    }

    /// `GET /trips/{id}`: one trip, from the cache while it is unchanged.
    ///
    /// The hot path: one short read of the store and one cache lookup. The ETag is only
    /// spelled out when a request asks `If-None-Match` or the cache misses.
    func showTrip(_ id: Trip.ID, _ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let form = try negotiateRead(Trip.self, for: request)
        let isPrivate = caching.isPrivate(request)
        guard case .representation(let chosen) = form else {
            return try showTripPage(id, request, language: form.language, isPrivate: isPrivate)
        }
        // The trip itself is copied out of the store only on a cache miss: a hit needs its
        // version alone, and copying a trip (four strings) costs more than the rest of a hit.
        guard let version = store.read({ list in list.version(of: id) }) else { throw .notFound(request.path) }
        if request.headerFields.contains(.ifNoneMatch) || request.headerFields.contains(.ifMatch) {
            let etag = EntityTag.trip(id, version: version, chosen.mediaType, chosen.language)
            if let notModified = try notModified(request, current: etag, language: chosen.language, isPrivate: isPrivate) {
                return notModified
            }
        }
        let coding = ResponseCompression.coding(for: request)
        let slot = caching.slot(chosen.cacheSlot, isPrivate: isPrivate)
        if let hit = cache.trip(id, version: version, slot: slot, coding: coding) { return hit }
        // Read again with its version: a change in between is served as it now is, and cached
        // under its own version, never under the one read above.
        guard let (trip, current) = store.read({ list in list[id].map { ($0, list.version(of: id) ?? 0) } }) else {
            throw .notFound(request.path)
        }
        // The trip is as it was at its version, and still is: a client that follows the
        // changes from there misses nothing (and may see some it does not need).
        let etag = EntityTag.trip(id, version: current, chosen.mediaType, chosen.language)
        var response = represent(trip, as: chosen, etag: etag, revision: current)
        caching.describe(&response.headerFields, language: chosen.language, isPrivate: isPrivate)
        return cache.keep(response, trip: id, version: current, slot: slot, coding: coding)
    }

    /// The trip's page (`TripPage`): the trip, the one that starts next, and the versions and
    /// revision they were read at, read together. Kept per revision (`RepresentationCache`),
    /// per host the request named (its links name it) and per language choice: a hit reads
    /// the revision alone, as a trip's representation reads its version.
    private func showTripPage(_ id: Trip.ID, _ request: HTTPRequest, language: Language?, isPrivate: Bool) throws(APIError)
        -> HTTPResponse
    {
        guard let revision = store.read({ list in list.version(of: id).map { _ in list.revision } }) else {
            throw .notFound(request.path)
        }
        if let notModified = try notModified(
            request, current: EntityTag.tripPage(id, revision: revision, language), language: language, isPrivate: isPrivate)
        {
            return notModified
        }
        let host = request.headerFields[.host] ?? "localhost"
        let slot = caching.slot(LanguageChoice.slot(position: 0, language), isPrivate: isPrivate)
        let key = RepresentationCache.TripPageKey(id: id, host: host, slot: slot, coding: ResponseCompression.coding(for: request))
        if let hit = cache.tripPage(key, revision: revision) { return hit }
        let origin = "http://\(host)"
        // Read again, whole: a change in between is served as it now is, and kept under its own revision.
        guard
            let (trip, version, next, current) = store.read({ list in
                list[id].map { ($0, list.version(of: id) ?? 0, list.next(after: $0), list.revision) }
            })
        else { throw .notFound(request.path) }
        let etag = EntityTag.tripPage(id, revision: current, language)
        let page = TripPage(trip: trip, version: version, next: next, revision: current, origin: origin, language: language)
        var response = representPage(page.render(), etag: etag, revision: version, language: language)
        caching.describe(&response.headerFields, language: language, isPrivate: isPrivate)
        return cache.keep(response, tripPage: key, revision: current)
    }

    /// `GET /health`: 200 while the service can serve.
    func health(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let status = HealthStatus(tripCount: store.list.trips.count, storeProblem: store.writeFailure.map(Self.describe))
        return represent(status, as: try negotiate(HealthStatus.self, for: request))
    }

    /// `GET /livez`: 200 while the process serves (a liveness probe).
    func livez(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        represent(ProbeAnswer.live, as: try negotiate(ProbeAnswer.self, for: request))
    }

    /// `GET /readyz`: 200 while changes can be saved; 503 with the reason after a failed
    /// write, until a write succeeds (a readiness probe: a balancer sends traffic elsewhere).
    func readyz(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        if let failure = store.writeFailure {
            var error = APIError(.serviceUnavailable, "Not ready: \(Self.describe(failure)).", type: .storageUnavailable)
            error.headerFields[.retryAfter] = "5"
            throw error
        }
        return represent(ProbeAnswer.ready, as: try negotiate(ProbeAnswer.self, for: request))
    }

    /// A storage failure as clients may hear it: no paths, no system error text.
    static func describe(_ failure: StorageError) -> String {
        failure.isOutOfSpace ? "the disk is full, so changes cannot be saved" : "changes cannot be saved"
    }

    /// `GET /problems/{kind}`: what a kind of problem means (a problem document's `type`
    /// points here). Unknown kinds are 404 from the route table.
    func describeProblem(_ type: ProblemType, _ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        represent(type, as: try negotiate(ProblemType.self, for: request))
    }

    /// `GET /openapi.yaml`: the spec, as it is in the repository.
    func openAPI(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        represent(OpenAPISpec(), as: try negotiate(OpenAPISpec.self, for: request))
    }
}

/// What `/livez` and `/readyz` say when all is well.
enum ProbeAnswer: String, Transferable {
    case live, ready

    static let transferRepresentations: [TransferRepresentation<ProbeAnswer>] = [
        TransferRepresentation(.json) { Array(#"{"status":"\#($0.rawValue)"}"#.utf8) },
        TransferRepresentation(.plainText) { Array("\($0.rawValue)\n".utf8) },
    ]
}

/// What `/health` says: the process serves, how many trips it has, and whether changes
/// can be saved.
struct HealthStatus: Transferable {
    var tripCount: Int
    /// Why changes cannot be saved now, or nil.
    var storeProblem: String?

    static let transferRepresentations: [TransferRepresentation<HealthStatus>] = [
        TransferRepresentation(.json) { health in
            var writer = JSONWriter()
            writer.appendRaw(#"{"status":"ok","trips":"#)
            writer.appendInteger(health.tripCount)
            writer.appendRaw(#","store":"#)
            writer.appendString(health.storeProblem.map { "failing: \($0)" } ?? "ok")
            writer.appendRaw("}")
            return writer.bytes
        },
        TransferRepresentation(.plainText) { health in
            Array("ok: \(health.tripCount) trips; store \(health.storeProblem.map { "failing: \($0)" } ?? "ok")\n".utf8)
        },
    ]
}

extension TripQuery {
    /// The view a `GET /trips` query asks for; 400 naming the parameter when a value is bad,
    /// a parameter is unknown, or one is given twice.
    init(queryItems: [HTTPQueryItem]) throws(APIError) {
        self.init()
        var seen = Set<String>()
        for item in queryItems {
            guard seen.insert(item.name).inserted else { throw APIError(.badRequest, "\(item.name): is given more than once") }
            switch item.name {
            case "filter":
                guard let filter = Filter(rawValue: item.value) else {
                    throw APIError(.badRequest, "filter: must be all or favorites, not \"\(item.value)\"")
                }
                self.filter = filter
            case "country":
                guard !item.value.isEmpty else { throw APIError(.badRequest, "country: must not be empty") }
                country = item.value
            case "q":
                search = item.value.isEmpty ? nil : item.value
            case "sort":
                guard let order = TripOrder(item.value) else {
                    throw APIError(.badRequest, "sort: must be start, -start, price or -price, not \"\(item.value)\"")
                }
                self.order = order
            default:
                throw APIError(.badRequest, "\(item.name): is not a parameter of /trips (filter, country, q, sort, limit, after)")
            }
        }
    }
}
