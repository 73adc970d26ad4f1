import Foundation
import TripsDomain
import TripsFormats

/// Changes to the list as a whole: reorders, sorts, favorites, photos.
extension TripsClient {
    /// Moves these trips in front of `target`, or with nil to the end, as the lesson's
    /// `move(_:before:)`: the reorder difference (`PATCH /trips`). Answers the list after it.
    @discardableResult
    public func move(_ ids: [Trip.ID], before target: Trip.ID?, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<[Trip]>
    {
        try await reorder(ReorderDifference(sources: ids, destination: target.map { .before($0) } ?? .end), ifMatch: ifMatch)
    }

    /// Moves these trips to the end of the list.
    @discardableResult
    public func moveToEnd(_ ids: [Trip.ID], ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<[Trip]> {
        try await move(ids, before: nil, ifMatch: ifMatch)
    }

    /// Applies a reorder difference.
    @discardableResult
    public func reorder(_ difference: ReorderDifference, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<[Trip]> {
        var writer = JSONWriter()
        writer.appendRaw(#"{"sources":"#)
        writer.appendIntegers(difference.sources)
        writer.appendRaw(#","destination":"#)
        writer.appendDestination(difference.destination)
        writer.appendRaw("}")
        return try await listAnswer(.json("PATCH", "/trips", body: writer.bytes, ifMatch: ifMatch))
    }

    /// Sorts the stored list by start or price.
    @discardableResult
    public func sort(by key: TripSortKey, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<[Trip]> {
        var writer = JSONWriter()
        writer.appendRaw(#"{"by":"#)
        writer.appendString(key.rawValue)
        writer.appendRaw("}")
        return try await listAnswer(.json("POST", "/trips/sort", body: writer.bytes, ifMatch: ifMatch))
    }

    /// Makes these trips favorites, as a drop on the Favorites chip: answers which were newly
    /// added (empty: the favorites did not change, so no success feedback).
    @discardableResult
    public func makeFavorites(_ ids: [Trip.ID], ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<FavoritesAnswer> {
        var writer = JSONWriter()
        writer.appendIntegers(ids)
        return try await favoritesAnswer(.json("POST", "/favorites", body: writer.bytes, ifMatch: ifMatch))
    }

    /// Makes the trips these lines name favorites: a city, or a trip's sentence, per line.
    @discardableResult
    public func makeFavorites(named names: [String], ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<FavoritesAnswer> {
        let request = ClientRequest(
            method: "POST", path: "/favorites", body: Array(names.joined(separator: "\n").utf8), contentType: "text/plain; charset=utf-8",
            ifMatch: ifMatch)
        return try await favoritesAnswer(request)
    }

    /// Makes one trip a favorite, or not (`ifMatch`: a tag of the trip).
    @discardableResult
    public func setFavorite(_ id: Trip.ID, _ isFavorite: Bool, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<Trip> {
        try await tripAnswer(ClientRequest(method: isFavorite ? "PUT" : "DELETE", path: "/favorites/\(id)", ifMatch: ifMatch))
    }

    /// Sets a trip's photo: a JPEG, PNG or WebP file's bytes and its type (`image/jpeg`).
    @discardableResult
    public func setPhoto(_ id: Trip.ID, _ bytes: [UInt8], type: String, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<
        Trip
    > {
        try await tripAnswer(ClientRequest(method: "PUT", path: "/trips/\(id)/photo", body: bytes, contentType: type, ifMatch: ifMatch))
    }

    /// Removes a trip's photo.
    @discardableResult
    public func clearPhoto(_ id: Trip.ID, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<Trip> {
        try await tripAnswer(ClientRequest(method: "DELETE", path: "/trips/\(id)/photo", ifMatch: ifMatch))
    }

    private func listAnswer(_ request: ClientRequest) async throws(TripsClientError) -> Versioned<[Trip]> {
        let answer = try await send(request)
        return Versioned(value: try Self.trips(answer.json()), etag: answer.etag, revision: answer.revision)
    }

    private func favoritesAnswer(_ request: ClientRequest) async throws(TripsClientError) -> Versioned<FavoritesAnswer> {
        let answer = try await send(request)
        guard case .object(let members) = try answer.json(), case .array(let added)? = members["added"],
            let favorites = members["favorites"]
        else { throw .invalidAnswer("a favorite drop's answer needs added and favorites") }
        var ids: [Trip.ID] = []
        for case .number(let literal) in added {
            guard let id = Int(literal) else { throw .invalidAnswer("added holds \(literal), not a trip id") }
            ids.append(id)
        }
        let answerValue = FavoritesAnswer(added: ids, favorites: try Self.trips(favorites))
        return Versioned(value: answerValue, etag: answer.etag, revision: answer.revision)
    }
}
