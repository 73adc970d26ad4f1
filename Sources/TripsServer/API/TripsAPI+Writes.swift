import TripsDomain
import TripsFormats
import TripsHTTP
import TripsStore

/// Endpoints that change the list. Each reads and checks its body first, negotiates the
/// answer before changing anything, checks `If-Match` against the newest list inside the
/// change, and answers only once the change is durable.
extension TripsAPI {
    /// `POST /trips`: new trips from a JSON draft or a sentence (201 with the trip and its
    /// location), or from an array of drafts or several lines of sentences (201 with the new
    /// trips as a list); all or nothing, at the end or in front of `?before=ID`. `If-Match`
    /// names the list as the client saw it: the page undoes a delete with it, so a trip never
    /// comes back into a list that moved meanwhile.
    func createTrips(_ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let new = try RequestBody.decode(request, as: NewTrips.self)
        let before = try insertionPoint(request.queryItems)
        let preconditions = ChangePreconditions(request)
        let plan: @Sendable (TripList) throws(MutationError) -> TripChange = { list throws(MutationError) in
            try preconditions.check(against: EntityTag.allList(list))
            return .add(new.drafts, before: before)
        }
        let readsNoList = preconditions.isEmpty && before == nil
        if new.isList {
            let chosen = try negotiate([Trip].self, for: request)
            return try change(request, readsNoList: readsNoList, plan: plan) { [self] mutation throws(APIError) in
                guard case .added(let trips)? = mutation.outcome else { throw .inconsistent }
                return represent(trips, as: chosen, status: .created, revision: mutation.revision)
            }
        }
        let chosen = try negotiate(Trip.self, for: request)
        return try change(request, readsNoList: readsNoList, plan: plan) { [self] mutation throws(APIError) in
            guard case .added(let trips)? = mutation.outcome, let trip = trips.first, let version = mutation.tripVersion else {
                throw .inconsistent
            }
            return representTrip(
                trip, version: version, revision: mutation.revision, as: chosen, status: .created,
                extraFields: [.location: "/trips/\(trip.id)"], json: mutation.tripJSON)
        }
    }

    /// What `PUT /trips/{id}` reads: a trip's JSON.
    static let tripReplacementTypes: [MediaType] = [.json]

    /// `PUT /trips/{id}`: every field but the id and the photo replaced. The body is read
    /// against the newest trip, as a patch is: a photo it shows must be the trip's own.
    func replaceTrip(_ id: Trip.ID, _ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let json = try RequestBody.json(request, accepting: Self.tripReplacementTypes)
        return try changeTrip(id, request) { list throws(MutationError) in
            .replace(id, try rejecting { () throws(TripsError) in try TripDraft(json: json, replacing: list[id]) })
        }
    }

    /// What `PATCH /trips/{id}` reads: a JSON merge patch, or the same as plain JSON.
    static let tripPatchTypes: [MediaType] = [.mergePatchJSON, .json]

    /// `PATCH /trips/{id}`: a JSON merge patch.
    func patchTrip(_ id: Trip.ID, _ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let patch = try RequestBody.json(request, accepting: Self.tripPatchTypes)
        return try changeTrip(id, request) { list throws(MutationError) in
            .replace(id, try rejecting { () throws(TripsError) in try list.draft(patching: id, with: patch) })
        }
    }

    /// `PUT` and `DELETE /favorites/{id}`: make one trip a favorite, or not.
    func setFavorite(_ id: Trip.ID, _ isFavorite: Bool, _ request: HTTPRequest) throws(APIError) -> HTTPReply {
        try changeTrip(id, request) { _ in .setFavorite(id, isFavorite) }
    }

    /// `DELETE /trips/{id}`: 204.
    func deleteTrip(_ id: Trip.ID, _ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let preconditions = ChangePreconditions(request)
        return try change(
            request, pathID: id,
            plan: { list throws(MutationError) in
                try existing(id, in: list)
                try preconditions.check(against: EntityTag.allTrip(id, in: list))
                return .delete([id])
            }
        ) { [self] mutation in
            cache.forget([id])
            return HTTPResponse(status: .noContent, headerFields: [.tripsRevision: String(mutation.revision)])
        }
    }

    /// `DELETE /trips?ids=1,3`: several trips, all or nothing; 204.
    func deleteTrips(_ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let ids = try deletionIDs(request.queryItems)
        let preconditions = ChangePreconditions(request)
        return try change(
            request,
            plan: { list throws(MutationError) in
                try preconditions.check(against: EntityTag.allList(list))
                return .delete(ids)
            }
        ) { [self] mutation in
            cache.forget(ids)
            return HTTPResponse(status: .noContent, headerFields: [.tripsRevision: String(mutation.revision)])
        }
    }

    /// `PATCH /trips` and `POST /trips/reorder`: apply a reorder difference; 200 with the list.
    func reorder(_ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let difference = try RequestBody.decode(request, as: ReorderDifference.self)
        return try changeList(request) { _ in .move(difference) }
    }

    /// `POST /trips/sort`: sort the stored list by start or price; 200 with the list.
    func sortTrips(_ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let key = try RequestBody.decode(request, as: TripSortKey.self)
        return try changeList(request) { _ in .sort(key) }
    }

    /// `PATCH` and `POST /favorites`: a favorite drop; 200 saying which trips were added, and
    /// listing the favorites unless `Prefer: return=minimal` asks for the first alone.
    func dropFavorites(_ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let drop = try RequestBody.decode(request, as: FavoriteDrop.self)
        let chosen = try negotiate(FavoritesChange.self, for: request)
        let preconditions = ChangePreconditions(request)
        let isMinimal = request.prefersMinimalReturn
        return try change(
            request, returningList: !isMinimal,
            plan: { list throws(MutationError) in
                try preconditions.check(against: EntityTag.allList(list))
                // The drop's lines were read and folded above, outside the store's lock.
                return .makeFavorites(try rejecting { () throws(TripsError) in try list.resolve(drop) })
            }
        ) { [self] mutation throws(APIError) in
            guard case .addedFavorites? = mutation.outcome else { throw .inconsistent }
            var favorites: [Trip]?
            if !isMinimal {
                guard let list = mutation.list else { throw .inconsistent }
                favorites = list.favorites
            }
            let change = FavoritesChange(added: mutation.addedFavorites, favorites: favorites)
            let etag = EntityTag.list(revision: mutation.revision, chosen.mediaType, chosen.language)
            return represent(
                change, as: chosen, etag: etag, revision: mutation.revision,
                extraFields: isMinimal ? [.preferenceApplied: "return=minimal"] : [:])
        }
    }

    /// A change to the one trip the path names: 404 when it is gone, 412 on a stale
    /// `If-Match`, and the trip as it now is in the answer.
    func changeTrip(
        _ id: Trip.ID, _ request: HTTPRequest, photo: PhotoBytes? = nil,
        plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange
    ) throws(APIError) -> HTTPReply {
        let chosen = try negotiate(Trip.self, for: request)
        let preconditions = ChangePreconditions(request)
        return try change(
            request, pathID: id, photo: photo,
            plan: { list throws(MutationError) in
                try existing(id, in: list)
                try preconditions.check(against: EntityTag.allTrip(id, in: list))
                return try plan(list)
            }
        ) { [self] mutation throws(APIError) in
            guard case .trip(let trip)? = mutation.outcome, let version = mutation.tripVersion else { throw .inconsistent }
            return representTrip(trip, version: version, revision: mutation.revision, as: chosen, json: mutation.tripJSON)
        }
    }

    /// A change to the list's order: 412 on a stale `If-Match`, and the list in the answer;
    /// with `Prefer: return=minimal`, 204 with the list's new tag and revision instead (the
    /// answer then costs nothing in proportion to the list, nor does the change keep a copy).
    private func changeList(
        _ request: HTTPRequest, plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange
    ) throws(APIError) -> HTTPReply {
        let chosen = try negotiate([Trip].self, for: request)
        let preconditions = ChangePreconditions(request)
        let isMinimal = request.prefersMinimalReturn
        return try change(
            request, returningList: !isMinimal,
            plan: { list throws(MutationError) in
                try preconditions.check(against: EntityTag.allList(list))
                return try plan(list)
            }
        ) { [self] mutation throws(APIError) in
            if isMinimal {
                let etag = EntityTag.list(revision: mutation.revision, chosen.mediaType, chosen.language)
                return HTTPResponse(
                    status: .noContent,
                    headerFields: [
                        .tripsRevision: String(mutation.revision), .etag: etag.headerValue, .preferenceApplied: "return=minimal",
                    ])
            }
            guard let list = mutation.list else { throw .inconsistent }
            return represent(
                Array(list.trips), as: chosen, etag: EntityTag.list(revision: list.revision, chosen.mediaType, chosen.language),
                revision: list.revision)
        }
    }

    /// A trip with its validator; `json`, the trip's JSON object as the change's event wrote
    /// it, is sent as it is when the answer is JSON.
    private func representTrip(
        _ trip: Trip, version: UInt64, revision: UInt64, as chosen: Negotiated<Trip>, status: HTTPStatus = .ok,
        extraFields: HTTPFields = [:], json: ArraySlice<UInt8>? = nil
    ) -> HTTPResponse {
        let etag = EntityTag.trip(trip.id, version: version, chosen.mediaType, chosen.language)
        let exported = chosen.mediaType == .json ? json.map(Array.init) : nil
        return represent(trip, as: chosen, status: status, etag: etag, revision: revision, extraFields: extraFields, exported: exported)
    }

    /// `before=ID` from `POST /trips`, or nil (at the end); 400 for any other parameter.
    private func insertionPoint(_ items: [HTTPQueryItem]) throws(APIError) -> Trip.ID? {
        guard let item = items.first else { return nil }
        guard items.count == 1, item.name == "before" else {
            throw APIError(.badRequest, "\(items.count == 1 ? item.name : "the query"): POST /trips takes only before=ID")
        }
        guard !item.value.isEmpty, item.value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw APIError(.badRequest, "before: must be a trip id, not \"\(item.value)\"")
        }
        guard let id = Int(item.value), id > 0 else {
            // A well-formed id too large for any trip names no trip, like any other unknown id.
            var error = APIError(.unprocessableContent, "before: no trip has the id \(item.value)", type: .unknownIDs)
            error.member = "before"
            throw error
        }
        return id
    }

    /// `ids=1,3` from `DELETE /trips`; 400 unless it is a list of ids and the only parameter.
    private func deletionIDs(_ items: [HTTPQueryItem]) throws(APIError) -> [Trip.ID] {
        guard items.count == 1, let item = items.first, item.name == "ids" else {
            throw APIError(.badRequest, "ids: name the trips to delete, as in DELETE /trips?ids=1,3")
        }
        let ids = item.value.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard !ids.isEmpty, ids.allSatisfy({ ($0 ?? 0) > 0 }) else {
            throw APIError(.badRequest, "ids: must be trip ids separated by commas, not \"\(item.value)\"")
        }
        return ids.compactMap { $0 }
    }
}

/// Refuses a change to a trip the list does not have (404 for the trip in the path).
private func existing(_ id: Trip.ID, in list: TripList) throws(MutationError) {
    guard list[id] != nil else { throw .rejected(.unknownTrips([id])) }
}

/// Runs domain code inside a change, turning its refusal into the change's.
func rejecting<T>(_ body: () throws(TripsError) -> T) throws(MutationError) -> T {
    do { return try body() } catch { throw .rejected(error) }
}

extension APIError {
    /// A change succeeded but did not report what it should have: a bug, not the client's fault.
    static let inconsistent = APIError(.internalServerError, "The change was made, but its result could not be read back.")
}
