import TripsDomain

/// The one place a store turns a request into a change: it looks up the idempotency key,
/// runs the plan against the newest list, applies the change there and makes its record.
/// Every store plans this way and differs only in how the planned changes become durable
/// (`TripStore`: the journal and `fdatasync`; `MemoryTripStore`: at once;
/// `PostgresTripStore`: a transaction).
///
/// The key's rules (the IETF `Idempotency-Key` draft): one already used for the same request
/// answers its first answer again and changes nothing; used for another request,
/// `.idempotencyConflict` (422); its first request still on its way to being durable,
/// `.idempotencyInFlight` (409). A new key is kept with its change's record, its answer
/// trimmed by `StoredAnswer.kept(for:)`; a change that changed nothing keeps it in the ledger
/// only, and a refused change keeps none.
enum ChangePlanner {
    /// Plans `request` against `list`, applies its change to `list`, and marks its key in
    /// `ledger`: in flight while the change is not durable (`PlannedChange.Entry.settle` or
    /// `abandon` ends that), kept at once when the change changed nothing.
    static func plan(_ request: ChangeRequest, on list: inout TripList, ledger: inout IdempotencyLedger) -> PlannedChange {
        if let idempotency = request.idempotency {
            switch ledger.lookup(idempotency.key, fingerprint: idempotency.fingerprint) {
            case .new: break
            case .replay(let first): return .answeredByKey(.success(Mutation(replaying: first, list: list)))
            case .conflict: return .answeredByKey(.failure(.idempotencyConflict))
            case .inFlight: return .answeredByKey(.failure(.idempotencyInFlight))
            }
        }
        let change: TripChange?
        var applied: (outcome: TripChangeOutcome, event: ChangeEvent?)?
        do throws(MutationError) {
            change = try request.plan(list)
            if case .setPhoto(_, let photo?)? = change, request.photo?.photo != photo {
                throw .storage(.photoBytesMissing(digest: photo.digest))
            }
            if let change {
                // `apply` changes nothing when it throws, so the list stays as it was.
                do throws(TripsError) {
                    if let violation = change.codePointLimitViolation { throw violation }
                    applied = try list.applyTelling(change)
                } catch {
                    throw .rejected(error)
                }
            }
        } catch {
            return PlannedChange(result: .failure(error), entry: nil)
        }
        var mutation = Mutation(outcome: applied?.outcome, list: list, returningList: request.returningList)
        mutation.tripJSON = applied?.event?.tripJSON
        var use: IdempotencyKeyUse?
        if let idempotency = request.idempotency, let answer = idempotency.answer(mutation) {
            mutation.answer = answer  // whole: the ledger and the record keep `use`, trimmed
            use = idempotency.use(answered: answer, outcome: applied?.outcome)
        }
        guard let change, let applied, let event = applied.event else {
            if let use { ledger.finish(use, now: use.at) }  // nothing to make durable: kept in the ledger only
            return PlannedChange(result: .success(mutation), entry: nil, keptUse: use)
        }
        if let use { ledger.begin(use.ledgerKey, fingerprint: use.fingerprint) }  // kept once durable
        let record = JournalRecord(revision: list.revision, change: change, idempotency: use)
        var entry = PlannedChange.Entry(record: record, event: event, outcome: applied.outcome)
        if case .setPhoto(_, .some) = change { entry.photo = request.photo }
        return PlannedChange(result: .success(mutation), entry: entry)
    }

    /// Plans `request`, a lone append (`ChangeRequest.readsNoList`), without a list of the
    /// store's: its plan runs on an empty list, and the one trip it adds is checked as `plan`
    /// checks it and made under id 1, for an append transaction, in which the database gives
    /// the trip its id and the change its revision (`PostgresTripTables.Appends`). nil when
    /// the change is not one new trip at the end.
    static func planAppend(_ request: ChangeRequest) -> Result<(draft: TripDraft, trip: Trip), MutationError>? {
        let change: TripChange?
        do throws(MutationError) {
            change = try request.plan(emptyList)
        } catch {
            return .failure(error)
        }
        guard let change, case .add(let drafts, before: nil) = change, drafts.count == 1 else { return nil }
        do throws(TripsError) {
            if let violation = change.codePointLimitViolation { throw violation }
            return .success((drafts[0], try TripList.newTrips(drafts, firstID: 1)[0]))
        } catch {
            return .failure(.rejected(error))
        }
    }

    /// What a lone append's plan is handed: it reads nothing of it.
    private static let emptyList = TripList()
}
