import TripsDomain

/// What a transaction or a catching up did to a `State`, one step at a time, so that a second
/// copy of the state can be brought to the same revision by doing the same steps (`redo`)
/// instead of being copied whole: `PostgresTripStore` keeps two copies, the one reads see and
/// the one its writer changes in place, and swaps them once a transaction commits.
extension PostgresTripTables {
    package enum Step: Sendable, Equatable {
        /// A change made, here or by another instance, with the event the history keeps for it,
        /// the position keys it gave (nil: not known), and what it answered on the copy that
        /// took it first, whose trips the other copy takes (`TripList.apply(_:as:)`).
        /// Boxed: a step is copied on its way (into the steps, out to each redo), and copying
        /// its few hundred bytes each time cost more than the one allocation.
        indirect case change(JournalRecord, ChangeEvent, keys: TripPositionKeys.Assignment?, outcome: TripChangeOutcome)
        /// Every trip's position key, read from the table (the state did not know them).
        case keysRead(TripPositionKeys)
        /// An idempotency key's use kept in the ledger with no change (the change changed
        /// nothing, so there is nothing to make durable: `ChangePlanner`).
        case keyKept(IdempotencyKeyUse)
    }
}

extension PostgresTripTables.State {
    /// Does `step` on this state, as the journal's replay does a record: the change's revision
    /// must follow the list's, and lead to it. `leader`: the list that took the step first
    /// (`TripList.apply(_:as:following:)`).
    package mutating func redo(_ step: PostgresTripTables.Step, following leader: TripList? = nil) throws(PostgresStoreError) {
        switch step {
        case .keyKept(let use):
            ledger.finish(use, now: use.at)
        case .keysRead(let read):
            keys = read
        case .change(let record, let event, let keys, let outcome):
            try redo(record, event: event, keys: keys, madeAs: outcome, following: leader)
        }
    }

    /// Does a change (`Step.change`'s parts) on this state; answers what it answered here, for
    /// the other copy (`madeAs`: what it answered on that copy, whose trips this one takes;
    /// nil for a change read from the table, which no copy has taken yet).
    @discardableResult
    mutating func redo(
        _ record: JournalRecord, event: ChangeEvent, keys: TripPositionKeys.Assignment?, madeAs made: TripChangeOutcome?,
        following leader: TripList? = nil
    ) throws(PostgresStoreError) -> TripChangeOutcome {
        guard record.revision == list.revision + 1, event.revision == record.revision else {
            throw .damaged("change \(record.revision) follows \(list.revision)")
        }
        let outcome: TripChangeOutcome
        do throws(TripsError) {
            outcome =
                if let made { try list.apply(record.change, as: made, following: leader) } else { try list.apply(record.change) }
        } catch {
            throw .damaged("change \(record.revision) no longer applies: \(error)")
        }
        guard list.revision == record.revision else {
            throw .damaged("change \(record.revision) does not lead to revision \(record.revision)")
        }
        // Keys only for trips the list holds: a far id's key would cost a page of the keys'
        // table for nothing (a hostile server's change could name millions).
        if let stray = keys?.ids.first(where: { !list.contains($0) }) {
            throw .damaged("change \(record.revision) gives a position key to trip \(stray), which the list lacks")
        }
        history.append(event)
        if let use = record.idempotency { ledger.finish(use, now: use.at) }
        keep(keysOf: record.change, given: keys)
        return outcome
    }

    /// Brings `keys` past `change`, which gave `given` (nil: not recorded, as before the keys
    /// were, or for a sort): a deletion drops its trips' keys, and a change that places trips
    /// without recorded keys leaves them unknown, for the next transaction to read.
    package mutating func keep(keysOf change: TripChange, given: TripPositionKeys.Assignment?) {
        switch change {
        case .delete(let ids): keys?.remove(ids)
        case .add, .move, .sort: if let given { keys?.apply(given) } else { keys = nil }
        case .replace, .setFavorite, .setPhoto, .makeFavorites: break
        }
    }
}
