import TripsDomain

#if canImport(Observation)
import Observation
#endif

/// The lesson's `TripStore`, kept in sync with the service: the app calls `add`, `delete`,
/// `toggleFavorite`, `update`, `move(_:before:)` and `makeFavorites` as before; each change
/// shows at once, is sent with `If-Match` (the version this store showed) and an
/// idempotency key, and the change feed brings in what other clients change. A change the
/// server refuses is taken back; one made on a list that changed meanwhile (412) reloads the
/// list and says so in `notice`.
///
///     let store = TripStore(client: TripsClient(baseURL: url))
///     try await store.start()            // reads the list, then follows its changes
///     store.move([3], before: 1)         // shown now, sent in order
///
/// `@Observable` where Observation exists; `onChange` is called after every change either way.
/// Only `trips`, `revision` and `notice` are observed, and a view is told only when one of them
/// really changes: the store's bookkeeping is in `books`, a constant the macro leaves alone.
///
/// A trip `add` shows has a temporary id until the server answers: a negative one, so it
/// never names a trip of the list. In the lesson's app the store makes its ids itself and a
/// new trip has its id at once; here the server assigns ids (they are the list's, shared by
/// every client), so the store cannot know it before the answer. A negative id means "not
/// saved yet": an app shows the trip as pending and changes it only once it has its real id
/// (after `sent()`); a change sent with the temporary id names no trip and is refused.
@MainActor
#if canImport(Observation)
@Observable
#endif
public final class TripStore {
    /// The trips as the app shows them: the server's list with this store's own changes
    /// that the feed has not confirmed yet applied on top.
    public private(set) var trips: [Trip] = []
    /// The revision of the server's list this store has caught up with.
    public internal(set) var revision: UInt64 = 0
    /// What the person should be told about the last change that did not go as shown.
    public private(set) var notice: Notice?

    /// Why the list is not as this store's last change showed it.
    public enum Notice: Sendable, Hashable {
        /// The list changed elsewhere before the change arrived (412): nothing was changed,
        /// and the list was read again.
        case reloaded(detail: String)
        /// The server refused the change (or could not be reached): it was taken back.
        case refused(TripsClientError)
    }

    /// Called after every change to `trips`, `revision` or `notice`.
    public var onChange: (@MainActor () -> Void)? {
        get { books.onChange }
        set { books.onChange = newValue }
    }

    let client: TripsClient
    /// What the store keeps to do its work, which no view shows.
    let books = Bookkeeping()

    /// The store's working state: a class held in a constant, so that its changes are not
    /// observed (`@ObservationIgnored` cannot be written inside `#if canImport(Observation)`).
    @MainActor final class Bookkeeping {
        /// The server's list at the store's revision.
        var confirmed: [Trip] = []
        /// The store's changes, oldest first, until the feed shows them.
        var pending: [PendingChange] = []
        var sending: Task<Void, Never>?
        var following: Task<Void, Never>?
        var revisionWaiters: [(id: Int, revision: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        var lastWaiterID = 0
        var lastSerial = 0
        /// The list's `ETag` at a revision, from the last answer that carried it: the
        /// `If-Match` of a change to the list while the store is at that revision.
        var listTag: (revision: UInt64, etag: String)?
        /// Each trip's `ETag` from the last answer that carried it, with the revision the trip
        /// changed at: the `If-Match` of its next change until the feed tells a later change of it.
        var tripTags: [Trip.ID: (revision: UInt64, etag: String)] = [:]
        var onChange: (@MainActor () -> Void)?

        /// Keeps the list's tag, when an answer carried one with its revision.
        func remember(listTag etag: String?, at revision: UInt64?) {
            guard let etag, let revision else { return }
            listTag = (revision, etag)
        }

        /// Keeps a trip's tag, when an answer carried one with the revision the trip changed at.
        func remember(tripTag etag: String?, of id: Trip.ID, at revision: UInt64?) {
            guard let etag, let revision else { return }
            tripTags[id] = (revision, etag)
        }

        /// Forgets the tags of these trips taken before `revision`, at which they changed.
        func forgetTripTags(of ids: [Trip.ID], before revision: UInt64) {
            for id in ids where (tripTags[id]?.revision ?? .max) < revision { tripTags[id] = nil }
        }
    }

    /// A change shown before the server confirmed it.
    struct PendingChange {
        let serial: Int
        /// What it does to the list shown.
        var apply: ([Trip]) -> [Trip]
        /// The revision the server answered it with; the change is in `confirmed` once
        /// `revision` reaches it.
        var answeredRevision: UInt64?
    }

    public init(client: TripsClient) {
        self.client = client
    }

    /// Reads the list and follows its changes until `stop()`.
    public func start() async throws(TripsClientError) {
        try await reload()
        follow()
    }

    /// Stops following the changes.
    public func stop() {
        books.following?.cancel()
        books.following = nil
    }

    /// Returns once every change made so far has been answered (or refused).
    public func sent() async {
        while let current = books.sending {
            await current.value
            if books.sending == current { break }
        }
    }

    /// Returns once the store has caught up with `revision` of the server's list, or the
    /// calling task is cancelled.
    public func waitUntil(revision wanted: UInt64) async {
        guard revision < wanted else { return }
        books.lastWaiterID += 1
        let (id, books) = (books.lastWaiterID, books)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard !Task.isCancelled else { return continuation.resume() }
                books.revisionWaiters.append((id, wanted, continuation))
            }
        } onCancel: {
            Task { @MainActor in
                guard let index = books.revisionWaiters.firstIndex(where: { $0.id == id }) else { return }
                books.revisionWaiters.remove(at: index).continuation.resume()
            }
        }
    }

    /// Reads the whole list again (unless the feed brought a newer one meanwhile); the
    /// store's unanswered changes stay on top of it.
    public func reload() async throws(TripsClientError) {
        let list = try await client.list()
        // The feed may have moved past the list while it was read: its state is then the newer.
        if let read = list.revision, read >= revision {
            books.confirmed = list.value
            books.remember(listTag: list.etag, at: read)
            // Any trip may have changed since the store's revision: only tags as new as the list stay.
            books.tripTags = books.tripTags.filter { $0.value.revision >= read }
            set(revision: read)
        }
        settle()
    }

    /// Recomputes what is shown: drops the changes the list now holds, then applies the rest.
    /// `trips` is set (and observers told) only when it differs.
    func settle() {
        books.pending.removeAll { change in change.answeredRevision.map { $0 <= revision } ?? false }
        let shown = books.pending.reduce(books.confirmed) { shown, change in change.apply(shown) }
        if shown != trips { trips = shown }
        let ready = books.revisionWaiters.filter { $0.revision <= revision }
        books.revisionWaiters.removeAll { $0.revision <= revision }
        for waiter in ready { waiter.continuation.resume() }
        books.onChange?()
    }

    /// Moves to `revision`; observers are told only when it differs.
    func set(revision new: UInt64) {
        if new != revision { revision = new }
    }

    /// Tells the person something; `nil` clears it.
    public func clearNotice() {
        guard notice != nil else { return }
        notice = nil
        books.onChange?()
    }

    func tell(_ notice: Notice) {
        self.notice = notice
        books.onChange?()
    }
}
