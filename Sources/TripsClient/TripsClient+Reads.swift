import Foundation
import TripsDomain
import TripsFormats

extension TripsClient {
    /// The list in stored order, or a view of it (`filter`, `country`, `q`, `sort`), whole,
    /// with the list's `ETag` and revision.
    public func list(_ query: TripQuery = TripQuery()) async throws(TripsClientError) -> Versioned<[Trip]> {
        let answer = try await send(ClientRequest(method: "GET", path: "/trips", query: query.queryItems))
        return Versioned(value: try Self.trips(answer.json()), etag: answer.etag, revision: answer.revision)
    }

    /// The trips of a view one page at a time (`limit`, then `after` the last one), as one
    /// sequence: a long list is never read whole.
    ///
    ///     for try await trip in client.trips(TripQuery(filter: .favorites), pageSize: 50) { … }
    public func trips(_ query: TripQuery = TripQuery(), pageSize: Int = 100) -> TripPages {
        TripPages(client: self, query: query, pageSize: min(max(pageSize, 1), 1_000))
    }

    /// One page: at most `limit` trips after the trip `after`, and whether more follow (`Link: rel="next"`).
    func page(_ query: TripQuery, limit: Int, after: Trip.ID?) async throws(TripsClientError) -> (trips: [Trip], hasMore: Bool) {
        var items = query.queryItems + [("limit", String(limit))]
        if let after { items.append(("after", String(after))) }
        let answer = try await send(ClientRequest(method: "GET", path: "/trips", query: items))
        let hasMore = answer.response.field("Link")?.contains(#"rel="next""#) ?? false
        return (try Self.trips(answer.json()), hasMore)
    }

    /// One trip, with its `ETag` (for `ifMatch`) and the revision it last changed at.
    public func trip(_ id: Trip.ID) async throws(TripsClientError) -> Versioned<Trip> {
        let answer = try await send(ClientRequest(method: "GET", path: "/trips/\(id)"))
        return Versioned(value: try Self.trip(answer.json()), etag: answer.etag, revision: answer.revision)
    }

    /// The list's current `ETag` and revision, without its trips (`HEAD /trips`).
    public func listVersion() async throws(TripsClientError) -> Versioned<Void> {
        let answer = try await send(ClientRequest(method: "HEAD", path: "/trips"))
        return Versioned(value: (), etag: answer.etag, revision: answer.revision)
    }

    /// A trip's current `ETag` and the revision it last changed at, without the trip.
    public func tripVersion(_ id: Trip.ID) async throws(TripsClientError) -> Versioned<Void> {
        let answer = try await send(ClientRequest(method: "HEAD", path: "/trips/\(id)"))
        return Versioned(value: (), etag: answer.etag, revision: answer.revision)
    }

    /// Reads a trip object.
    static func trip(_ json: JSONValue) throws(TripsClientError) -> Trip {
        do {
            return try Trip(json: json)
        } catch {
            throw .invalidAnswer("not a trip: \(error)")
        }
    }

    /// Reads an array of trip objects.
    static func trips(_ json: JSONValue) throws(TripsClientError) -> [Trip] {
        guard case .array(let elements) = json else { throw .invalidAnswer("not a list of trips but \(json.kindName)") }
        var trips: [Trip] = []
        trips.reserveCapacity(elements.count)
        for element in elements { trips.append(try trip(element)) }
        return trips
    }
}

extension TripQuery {
    /// The query of `GET /trips` for this view.
    var queryItems: [(name: String, value: String)] {
        var items: [(String, String)] = []
        if filter != .all { items.append(("filter", filter.rawValue)) }
        if let country { items.append(("country", country)) }
        if let search { items.append(("q", search)) }
        if let order { items.append(("sort", (order.isDescending ? "-" : "") + order.key.rawValue)) }
        return items
    }
}
