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
/// (Its internal state is observable too: `@ObservationIgnored` cannot sit inside `#if`.)
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
    public var onChange: (@MainActor () -> Void)?

    let client: TripsClient
    /// The server's list at `revision`.
    var confirmed: [Trip] = []
    /// This store's changes, oldest first, until the feed shows them.
    var pending: [PendingChange] = []
    var sending: Task<Void, Never>?
    var following: Task<Void, Never>?
    var revisionWaiters: [(revision: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    var lastSerial = 0

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
        following?.cancel()
        following = nil
    }

    /// Returns once every change made so far has been answered (or refused).
    public func sent() async {
        while let current = sending {
            await current.value
            if sending == current { break }
        }
    }

    /// Returns once the store has caught up with `revision` of the server's list.
    public func waitUntil(revision wanted: UInt64) async {
        guard revision < wanted else { return }
        await withCheckedContinuation { revisionWaiters.append((wanted, $0)) }
    }

    /// Reads the whole list again; the store's unanswered changes stay on top of it.
    public func reload() async throws(TripsClientError) {
        let list = try await client.list()
        confirmed = list.value
        revision = max(revision, list.revision ?? 0)
        settle()
    }

    /// Recomputes what is shown: drops the changes the list now holds, then applies the rest.
    func settle() {
        pending.removeAll { change in change.answeredRevision.map { $0 <= revision } ?? false }
        trips = pending.reduce(confirmed) { shown, change in change.apply(shown) }
        let ready = revisionWaiters.filter { $0.revision <= revision }
        revisionWaiters.removeAll { $0.revision <= revision }
        for waiter in ready { waiter.continuation.resume() }
        onChange?()
    }

    /// Tells the person something; `nil` clears it.
    public func clearNotice() {
        notice = nil
        onChange?()
    }

    func tell(_ notice: Notice) {
        self.notice = notice
        onChange?()
    }
}
