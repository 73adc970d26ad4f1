import Foundation
import TripsDomain
import TripsFormats

/// Changes to trips: create, replace, patch, delete.
extension TripsClient {
    /// Creates the trip a draft describes, at the end or in front of `before`.
    public func create(_ draft: TripDraft, before: Trip.ID? = nil, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<Trip>
    {
        var writer = JSONWriter()
        draft.writeJSON(to: &writer)
        return try await createOne(body: writer.bytes, type: "application/json", before: before, ifMatch: ifMatch)
    }

    /// Creates the trip a sentence describes (`Lisbon, Portugal: 4 nights from May 1, 2027`),
    /// read in `language`, or in whichever language it is in.
    public func create(sentence: String, language: Language? = nil, before: Trip.ID? = nil, ifMatch: String? = nil)
        async throws(TripsClientError) -> Versioned<Trip>
    {
        try await createOne(
            body: Array(sentence.utf8), type: "text/plain; charset=utf-8", before: before, ifMatch: ifMatch, language: language)
    }

    /// Creates several trips, all or nothing, in this order.
    public func create(_ drafts: [TripDraft], before: Trip.ID? = nil, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<
        [Trip]
    > {
        var writer = JSONWriter()
        writer.appendRaw("[")
        for (index, draft) in drafts.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            draft.writeJSON(to: &writer)
        }
        writer.appendRaw("]")
        return try await createSeveral(body: writer.bytes, type: "application/json", before: before, ifMatch: ifMatch)
    }

    /// Creates one trip per sentence, all or nothing.
    public func create(sentences: [String], language: Language? = nil, before: Trip.ID? = nil, ifMatch: String? = nil)
        async throws(TripsClientError) -> Versioned<[Trip]>
    {
        let body = Array(sentences.joined(separator: "\n").utf8)
        return try await createSeveral(body: body, type: "text/plain; charset=utf-8", before: before, ifMatch: ifMatch, language: language)
    }

    /// Replaces every field of the trip but its id and photo.
    public func replace(_ trip: Trip, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<Trip> {
        var writer = JSONWriter()
        trip.draft.writeJSON(to: &writer)
        return try await tripAnswer(.json("PUT", "/trips/\(trip.id)", body: writer.bytes, ifMatch: ifMatch))
    }

    /// Changes only the fields the patch sets (a JSON merge patch).
    public func patch(_ id: Trip.ID, _ patch: TripPatch, ifMatch: String? = nil) async throws(TripsClientError) -> Versioned<Trip> {
        var request = ClientRequest.json("PATCH", "/trips/\(id)", body: patch.json, ifMatch: ifMatch)
        request.contentType = "application/merge-patch+json"
        return try await tripAnswer(request)
    }

    /// Deletes one trip; answers the list's revision after it.
    @discardableResult
    public func delete(_ id: Trip.ID, ifMatch: String? = nil) async throws(TripsClientError) -> UInt64? {
        try await send(ClientRequest(method: "DELETE", path: "/trips/\(id)", ifMatch: ifMatch)).revision
    }

    /// Deletes several trips, all or nothing (`ifMatch`: a tag of the list).
    @discardableResult
    public func delete(_ ids: [Trip.ID], ifMatch: String? = nil) async throws(TripsClientError) -> UInt64? {
        let list = ids.map(String.init).joined(separator: ",")
        return try await send(ClientRequest(method: "DELETE", path: "/trips", query: [("ids", list)], ifMatch: ifMatch)).revision
    }

    private func createOne(body: [UInt8], type: String, before: Trip.ID?, ifMatch: String?, language: Language? = nil)
        async throws(TripsClientError) -> Versioned<Trip>
    {
        try await tripAnswer(creating(body: body, type: type, before: before, ifMatch: ifMatch, language: language))
    }

    private func createSeveral(body: [UInt8], type: String, before: Trip.ID?, ifMatch: String?, language: Language? = nil)
        async throws(TripsClientError) -> Versioned<[Trip]>
    {
        let answer = try await send(creating(body: body, type: type, before: before, ifMatch: ifMatch, language: language))
        let json = try answer.json()
        // One sentence sent as a list is answered with its trip.
        let trips = if case .object = json { [try Self.trip(json)] } else { try Self.trips(json) }
        return Versioned(value: trips, etag: answer.etag, revision: answer.revision)
    }

    private func creating(body: [UInt8], type: String, before: Trip.ID?, ifMatch: String?, language: Language?) -> ClientRequest {
        var request = ClientRequest(method: "POST", path: "/trips", body: body, contentType: type, ifMatch: ifMatch)
        if let before { request.query = [("before", String(before))] }
        if let language { request.headers = [("Content-Language", language.tag)] }
        return request
    }

    /// Sends a request answered with one trip.
    func tripAnswer(_ request: ClientRequest) async throws(TripsClientError) -> Versioned<Trip> {
        let answer = try await send(request)
        return Versioned(value: try Self.trip(answer.json()), etag: answer.etag, revision: answer.revision)
    }
}
