import TripsDomain

/// A change as the API asks it of a store: the plan to run against the newest list, whether
/// the answer shows the whole list, the idempotency key the request carried, and the bytes
/// of the photo the change sets.
package struct ChangeRequest: Sendable {
    /// The change to make, planned against the newest list (nil: nothing to do); throws
    /// `.rejected` or `.preconditionFailed`. It runs under a store's lock: quick and pure.
    let plan: @Sendable (TripList) throws(MutationError) -> TripChange?
    /// Whether the answer needs the list right after the change (`Mutation.list`).
    var returningList = false
    var idempotency: IdempotencyRequest?
    /// The photo a `setPhoto` change sets, with its bytes: the store makes them durable
    /// before the change (a `setPhoto` that names a photo without them is refused, so no trip
    /// ever refers to bytes the store lacks). Ignored when the change sets no photo.
    var photo: PhotoBytes?
    /// The W3C `traceparent` of the request's span on this server (`00-<trace id>-<span id>-
    /// <flags>`), which a store that writes to a database tags the transaction with, so a
    /// slow statement can be matched to its request; nil: untagged.
    var traceparent: String?
    /// The plan neither reads the list nor checks a precondition against it (a create at the
    /// end without `If-Match`): it makes the same change whatever the list, so a store may
    /// plan it on any list and have the database give it its id, revision and place
    /// (`PostgresTripTables.commitAppends`).
    var readsNoList = false
}
