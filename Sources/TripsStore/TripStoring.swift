import TripsDomain

/// What the API needs of the one owner of the trip list: reads from memory, changes that
/// complete once durable, the history of changes and a listener for new ones. `TripStore`
/// keeps the list in a data folder, `MemoryTripStore` in memory only, `PostgresTripStore` in
/// PostgreSQL, shared by several servers. All three plan changes with `ChangePlanner`.
package protocol TripStoring: AnyObject, Sendable {
    /// Runs `body` on the list as it is durable now, under the store's lock: keep it short.
    func read<T>(_ body: (borrowing TripList) throws -> T) rethrows -> T
    /// The durable list (a copy that shares storage).
    var list: TripList { get }
    /// What the store did so far, with the list's size and revision now.
    var statistics: (store: StoreStatistics, trips: Int, revision: UInt64) { get }
    /// Whether changes go to a journal on disk, whose syncs, bytes and compactions
    /// `statistics` counts (`/metrics` shows those families only then).
    var keepsAJournal: Bool { get }
    /// Why the store cannot write now, or nil when it can.
    var writeFailure: StorageError? { get }
    /// Runs `body` on the history, under the lock that tells the listener each new change.
    func withHistory<T>(_ body: (ChangeHistory) throws -> T) rethrows -> T
    /// Tells `listener` every durable change from now on, in revision order.
    func setChangeListener(_ listener: @escaping @Sendable (ChangeEvent) -> Void)
    /// The photo a trip in the durable list refers to by `digest`, with its bytes; nil when no
    /// trip refers to it. Fast enough for every `GET /photos/…`: from memory, a file, or a
    /// cache in front of the database.
    func photo(digest: String) throws(StorageError) -> PhotoBytes?
    /// Plans a change against the newest list and calls `completion` once it is durable, or
    /// refused (`ChangePlanner` says how).
    func submit(_ request: ChangeRequest, completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void)
    /// Finishes what was accepted and stops. Idempotent.
    func close()
}

extension TripStoring {
    /// Submits the change `plan` makes (`ChangeRequest` says what the parts are); `photo`
    /// brings the bytes of the photo a `.setPhoto` change sets, `traceparent` the request's
    /// trace context, `readsNoList` that the plan makes the same change whatever the list.
    package func mutate(
        _ plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange?, returningList: Bool = false,
        idempotency: IdempotencyRequest? = nil, photo: PhotoBytes? = nil, traceparent: String? = nil, readsNoList: Bool = false,
        completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void
    ) {
        submit(
            ChangeRequest(
                plan: plan, returningList: returningList, idempotency: idempotency, photo: photo, traceparent: traceparent,
                readsNoList: readsNoList),
            completion: completion)
    }
}

extension TripStore: TripStoring {
    package var keepsAJournal: Bool { true }
}

extension MemoryTripStore: TripStoring {
    package var keepsAJournal: Bool { false }
}

extension PostgresTripStore: TripStoring {
    package var keepsAJournal: Bool { false }
}
