import TripsDomain

/// A change that is on disk (or needed none), as the API answers it.
package struct Mutation: Sendable {
    /// A replayed one: the answer its idempotency key got the first time, and `list`, the
    /// list as it is now, from which an answer too large to keep is made again.
    package init(replaying answer: StoredAnswer, list: TripList) {
        var outcome: TripChangeOutcome?
        if case .remade(let kept) = answer.content { outcome = kept.outcome(in: list) }
        self.init(outcome: outcome, list: list, returningList: true)
        self.answer = answer
    }

    /// The answer to a change that did `outcome` (nil: nothing to do) and left `list`.
    package init(outcome: TripChangeOutcome?, list: TripList, returningList: Bool) {
        var tripVersion: UInt64?
        var addedFavorites: [Trip] = []
        switch outcome {
        case .trip(let trip)?: tripVersion = list.version(of: trip.id)
        case .added(let trips)?: tripVersion = trips.first.flatMap { list.version(of: $0.id) }
        case .addedFavorites(let ids)?: addedFavorites = list.inListOrder(ids).compactMap { list[$0] }
        default: break
        }
        self.init(
            list: returningList ? list : nil, revision: list.revision, outcome: outcome, tripVersion: tripVersion,
            addedFavorites: addedFavorites)
    }

    package init(
        list: TripList?, revision: UInt64, outcome: TripChangeOutcome?, tripVersion: UInt64?, addedFavorites: [Trip]
    ) {
        self.list = list
        self.revision = revision
        self.outcome = outcome
        self.tripVersion = tripVersion
        self.addedFavorites = addedFavorites
    }

    /// The list right after this change, when `mutate` was asked for it. Only answers that
    /// show the whole list ask: holding it makes the store copy its list on the next change,
    /// which costs about what writing the list into a response costs anyway.
    package let list: TripList?
    /// The list's revision right after this change (the same as before when it changed nothing).
    package let revision: UInt64
    /// What the change did; nil when the plan returned nil ("nothing to do").
    package let outcome: TripChangeOutcome?
    /// For a change to one trip: the revision at which that trip last changed, for its ETag.
    package let tripVersion: UInt64?
    /// For a favorite drop: the trips it made favorites, in list order, as its answer names
    /// them; picked as the change is made, so that an answer without the favorites
    /// (`Prefer: return=minimal`) needs no copy of the list. A drop that held one made the
    /// store's next changes copy each page of trips they touched (the page was shared), under
    /// the lock that orders PostgreSQL's writers.
    package let addedFavorites: [Trip]
    /// With an idempotency key: the answer to give (the first one, when replayed).
    package var answer: StoredAnswer?
    /// The JSON object of the trip the change answers with, as its event wrote it
    /// (`ChangeEvent.tripJSON`): the answer copies it rather than writing the trip again.
    package var tripJSON: ArraySlice<UInt8>?
}

/// A change made with an `Idempotency-Key`: the key and whose it is, what the request was,
/// when, and how to write its answer (nil: the answer is an error, not kept). The store keeps
/// that answer with the change as `StoredAnswer.kept(for:)` trims it.
package struct IdempotencyRequest: Sendable {
    package let key: IdempotencyLedger.Key
    package let fingerprint: String
    package let now: Int64
    package let answer: @Sendable (Mutation) -> StoredAnswer?

    package init(key: IdempotencyLedger.Key, fingerprint: String, now: Int64, answer: @escaping @Sendable (Mutation) -> StoredAnswer?) {
        self.key = key
        self.fingerprint = fingerprint
        self.now = now
        self.answer = answer
    }

    /// The use to keep for this request, whose change got `answer` and did `outcome`.
    package func use(answered answer: StoredAnswer, outcome: TripChangeOutcome?) -> IdempotencyKeyUse {
        IdempotencyKeyUse(key: key.key, scope: key.scope, fingerprint: fingerprint, at: now, answer: answer.kept(for: outcome))
    }
}

/// Why a mutation did not happen.
package enum MutationError: Error, Sendable {
    /// The list refused the change (unknown trip, invalid draft, …): a 4xx.
    case rejected(TripsError)
    /// The request's precondition (`If-Match`) does not hold against the newest list.
    case preconditionFailed
    /// The request's `If-None-Match` names a representation of the newest list (or is `*`,
    /// and the resource exists): the change is not made.
    case representationExists
    /// The change could not be made durable; nothing changed.
    case storage(StorageError)
    /// The idempotency key was used for a different request.
    case idempotencyConflict
    /// The first request with the idempotency key is still being made.
    case idempotencyInFlight
}
