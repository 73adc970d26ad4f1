import TripsDomain

/// A change that is on disk (or needed none), as the API answers it.
struct Mutation: Sendable {
    /// The list right after this change, when `mutate` was asked for it. Only answers that
    /// show the whole list ask: holding it makes the store copy its list on the next change,
    /// which costs about what writing the list into a response costs anyway.
    let list: TripList?
    /// The list's revision right after this change (the same as before when it changed nothing).
    let revision: UInt64
    /// What the change did; nil when the plan returned nil ("nothing to do").
    let outcome: TripChangeOutcome?
    /// For a change to one trip: the revision at which that trip last changed, for its ETag.
    let tripVersion: UInt64?
}

/// Why a mutation did not happen.
enum MutationError: Error, Sendable {
    /// The list refused the change (unknown trip, invalid draft, …): a 4xx.
    case rejected(TripsError)
    /// The request's precondition (`If-Match`) does not hold against the newest list.
    case preconditionFailed
    /// The change could not be made durable; nothing changed.
    case storage(StorageError)
}
