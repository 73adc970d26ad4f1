import TripsDomain

/// The lesson's API: each change is shown at once and sent in order.
extension TripStore {
    /// Adds the trip a draft describes, at the end or in front of `before`. It shows at once
    /// under a temporary negative id (see `TripStore`) and takes the server's id when answered.
    public func add(_ draft: TripDraft, before: Trip.ID? = nil) {
        let temporary = Trip(id: -(books.lastSerial + 1), draft: draft)
        enqueue({ $0.inserting([temporary], before: before) }) { store, serial async throws(TripsClientError) in
            let created = try await store.client.create(draft, before: before, ifMatch: try await store.listTag())
            store.replaceApply(of: serial, with: { $0.inserting([created.value], before: before) })
            return Answered(trip: created)
        }
    }

    /// Removes these trips, whatever order they are in. One trip is deleted with its own tag
    /// when the store knows it, else with the list's (`DELETE /trips?ids=`) when that is current.
    public func delete(_ doomed: [Trip]) {
        let ids = doomed.map(\.id)
        guard !ids.isEmpty else { return }
        enqueue({ trips in trips.filter { !ids.contains($0.id) } }) { store, _ async throws(TripsClientError) in
            if ids.count == 1, store.books.tripTags[ids[0]] != nil || store.currentListTag == nil {
                return Answered(revision: try await store.client.delete(ids[0], ifMatch: try await store.tripTag(ids[0])))
            }
            return Answered(revision: try await store.client.delete(ids, ifMatch: try await store.listTag()))
        }
    }

    /// Makes a trip a favorite, or not.
    public func toggleFavorite(_ trip: Trip) {
        let isFavorite = !(trips.first { $0.id == trip.id }?.isFavorite ?? trip.isFavorite)
        enqueue({ $0.settingFavorite([trip.id], isFavorite) }) { store, _ async throws(TripsClientError) in
            Answered(trip: try await store.client.setFavorite(trip.id, isFavorite, ifMatch: try await store.tripTag(trip.id)))
        }
    }

    /// Replaces the trip with the same id.
    public func update(_ trip: Trip) {
        enqueue({ trips in trips.map { $0.id == trip.id ? trip : $0 } }) { store, _ async throws(TripsClientError) in
            Answered(trip: try await store.client.replace(trip, ifMatch: try await store.tripTag(trip.id)))
        }
    }

    /// Moves these trips in front of another one, or, with no other one, to the end.
    public func move(_ ids: [Trip.ID], before target: Trip.ID?) {
        guard !ids.isEmpty else { return }
        let destination: ReorderDifference.Destination = target.map { .before($0) } ?? .end
        enqueue({ $0.moving(ids, to: destination) }) { store, _ async throws(TripsClientError) in
            Answered(list: try await store.client.move(ids, before: target, ifMatch: try await store.listTag()))
        }
    }

    /// Makes these trips favorites. Answers the ones that were not favorites yet, as this
    /// store shows them: play the success feedback when it is not empty.
    @discardableResult
    public func makeFavorites(_ dropped: [Trip]) -> [Trip.ID] {
        let ids = dropped.map(\.id)
        let added = trips.filter { ids.contains($0.id) && !$0.isFavorite }.map(\.id)
        guard !added.isEmpty else { return [] }
        enqueue({ $0.settingFavorite(ids, true) }) { store, _ async throws(TripsClientError) in
            Answered(list: try await store.client.makeFavorites(ids, ifMatch: try await store.listTag()))
        }
        return added
    }

    /// Sorts the stored list by start or price.
    public func sort(by key: TripSortKey) {
        enqueue({ trips in trips.sorted { key == .start ? $0.start < $1.start : $0.price < $1.price } }) {
            store, _ async throws(TripsClientError) in
            Answered(list: try await store.client.sort(by: key, ifMatch: try await store.listTag()))
        }
    }
}

extension TripStore {
    /// What the server answered a change with: the revision it made it at, and the list's
    /// tag at that revision (a change to the list as a whole) or the changed trip's, when the
    /// answer carried it.
    struct Answered {
        var revision: UInt64?
        var listTag: String?
        var tripTag: (id: Trip.ID, etag: String?)?

        init(revision: UInt64?) {
            self.revision = revision
        }

        init<Value>(list answer: Versioned<Value>) {
            revision = answer.revision
            listTag = answer.etag
        }

        init(trip answer: Versioned<Trip>) {
            revision = answer.revision
            tripTag = (answer.value.id, answer.etag)
        }
    }

    /// Shows a change now and sends it after the changes before it; `send` answers the
    /// revision the server made it at.
    func enqueue(
        _ apply: @escaping ([Trip]) -> [Trip],
        send: @escaping @MainActor (TripStore, _ serial: Int) async throws(TripsClientError) -> Answered
    ) {
        books.lastSerial += 1
        let serial = books.lastSerial
        books.pending.append(PendingChange(serial: serial, apply: apply))
        settle()
        let previous = books.sending
        books.sending = Task { [weak self] in
            await previous?.value
            await self?.deliver(serial, send)
        }
    }

    /// Changes what a change shows (an added trip, once the server named it).
    func replaceApply(of serial: Int, with apply: @escaping ([Trip]) -> [Trip]) {
        guard let index = books.pending.firstIndex(where: { $0.serial == serial }) else { return }
        books.pending[index].apply = apply
    }

    /// Sends one change, once the feed has shown this store's earlier ones (so the version
    /// it names in `If-Match` is the one it shows).
    private func deliver(_ serial: Int, _ send: @MainActor (TripStore, Int) async throws(TripsClientError) -> Answered) async {
        let earlier = books.pending.filter { $0.serial < serial }.compactMap(\.answeredRevision).max()
        if let earlier, books.following != nil { await waitUntil(revision: earlier) }
        do {
            let answered = try await send(self, serial)
            books.remember(listTag: answered.listTag, at: answered.revision)
            if let trip = answered.tripTag { books.remember(tripTag: trip.etag, of: trip.id, at: answered.revision) }
            if let index = books.pending.firstIndex(where: { $0.serial == serial }) {
                books.pending[index].answeredRevision = answered.revision ?? revision
                if books.following == nil { try await reload() }
            }
            settle()
        } catch .preconditionFailed(let problem) {
            books.pending.removeAll { $0.serial == serial }
            try? await reload()
            settle()
            tell(.reloaded(detail: problem.detail))
        } catch {
            books.pending.removeAll { $0.serial == serial }
            settle()
            tell(.refused(error))
        }
    }

    /// The list's tag at the store's revision: the one the last answer at that revision
    /// carried (a read of the list, a change to it), or else the server's current one when
    /// it is still at that revision (`HEAD /trips`); otherwise the list changed elsewhere and
    /// the feed has not told yet: 412 without sending the change.
    func listTag() async throws(TripsClientError) -> String? {
        if let known = currentListTag { return known }
        let version = try await client.listVersion()
        guard version.revision == revision else { throw Self.changedElsewhere }
        books.remember(listTag: version.etag, at: version.revision)
        return version.etag
    }

    /// The list's tag at the store's revision, when an answer carried it.
    var currentListTag: String? {
        guard let known = books.listTag, known.revision == revision else { return nil }
        return known.etag
    }

    /// The trip's tag: the one the last answer about it carried, while the feed has told no
    /// later change of it; or else the server's (`HEAD /trips/{id}`) when the trip is as this
    /// store shows it (it changed at or before `revision`); otherwise 412 without sending.
    func tripTag(_ id: Trip.ID) async throws(TripsClientError) -> String? {
        if let known = books.tripTags[id] { return known.etag }
        let version = try await client.tripVersion(id)
        guard let changed = version.revision, changed <= revision else { throw Self.changedElsewhere }
        books.remember(tripTag: version.etag, of: id, at: changed)
        return version.etag
    }

    static let changedElsewhere = TripsClientError.preconditionFailed(
        Problem(status: 412, title: "Precondition Failed", detail: "The list changed on another device; it was read again."))
}

extension Array where Element == Trip {
    func inserting(_ trips: [Trip], before: Trip.ID?) -> [Trip] {
        var copy = self
        copy.insert(trips, before: before)
        return copy
    }

    func moving(_ ids: [Trip.ID], to destination: ReorderDifference.Destination) -> [Trip] {
        var copy = self
        copy.move(ids, to: destination)
        return copy
    }

    func settingFavorite(_ ids: [Trip.ID], _ isFavorite: Bool) -> [Trip] {
        var copy = self
        copy.setFavorite(ids, isFavorite)
        return copy
    }
}
