import TripsDomain

/// A change that is on disk (or needed none), as the API answers it.
struct Mutation: Sendable {
    /// The list right after this change: durable, and what the response shows.
    let list: TripList
    /// What the change did; nil when the plan returned nil ("nothing to do").
    let outcome: TripChangeOutcome?
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
