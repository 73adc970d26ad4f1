import TripsDomain

/// Following the change feed: other clients' changes appear, and this store's own are confirmed.
extension TripStore {
    /// Follows the changes from `revision` on, until `stop()`; a feed the server refuses is
    /// told in `notice`.
    func follow() {
        books.following?.cancel()
        let changes = client.changes(since: revision)
        books.following = Task { [weak self] in
            do {
                for try await event in changes {
                    guard let self else { return }
                    await self.apply(event)
                }
            } catch {
                self?.tell(.refused(error as? TripsClientError ?? .connectionFailed("\(error)")))
            }
        }
    }

    /// Applies one change of the feed to the server's list; `reset` reads it again.
    func apply(_ event: TripChangeEvent) async {
        guard event.revision > revision else { return }
        if case .reset = event {
            try? await reload()
            return
        }
        books.confirmed.apply(event)
        books.forgetTripTags(of: event.changedTrips, before: event.revision)
        set(revision: event.revision)
        settle()
    }
}
