import TripsDomain

/// A change as the API asks it of a store: the plan to run against the newest list, whether
/// the answer shows the whole list, and the idempotency key the request carried.
package struct ChangeRequest: Sendable {
    /// The change to make, planned against the newest list (nil: nothing to do); throws
    /// `.rejected` or `.preconditionFailed`. It runs under a store's lock: quick and pure.
    let plan: @Sendable (TripList) throws(MutationError) -> TripChange?
    /// Whether the answer needs the list right after the change (`Mutation.list`).
    var returningList = false
    var idempotency: IdempotencyRequest?
}
