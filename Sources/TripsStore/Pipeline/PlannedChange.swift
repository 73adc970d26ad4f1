import TripsDomain

/// What `ChangePlanner` made of a request: the answer, and what must become durable before
/// the answer may be given.
package struct PlannedChange: Sendable {
    /// A change that changed the list: its record (with its idempotency key's use), which the
    /// journal or the tables keep, the event the change feed tells, and what the change did.
    package struct Entry: Sendable {
        let record: JournalRecord
        let event: ChangeEvent
        let outcome: TripChangeOutcome
        /// The photo the change sets, with its bytes: durable before the record is.
        var photo: PhotoBytes?
    }

    /// The answer, once `entry` and every change planned before it are durable.
    let result: Result<Mutation, MutationError>
    /// nil when the list did not change: nothing to make durable.
    let entry: Entry?
    /// When the list did not change: the idempotency key's use the ledger kept at once, if the
    /// request had a key (a store with a second copy of the ledger keeps it there too).
    var keptUse: IdempotencyKeyUse?
    /// The idempotency key alone made the answer (a replay, a conflict, a key in flight):
    /// the plan did not run, and the answer need not wait for the changes ahead of it.
    var isAnsweredByKey = false

    /// An answer the idempotency key alone made.
    static func answeredByKey(_ result: Result<Mutation, MutationError>) -> PlannedChange {
        PlannedChange(result: result, entry: nil, isAnsweredByKey: true)
    }
}

extension PlannedChange.Entry {
    /// The change is durable: the history tells it, and its key keeps its answer.
    package func settle(history: inout ChangeHistory, ledger: inout IdempotencyLedger) {
        history.append(event)
        if let use = record.idempotency { ledger.finish(use, now: use.at) }
    }

    /// The change will never be durable: its key is free again, and a retry is judged afresh.
    package func abandon(ledger: inout IdempotencyLedger) {
        if let use = record.idempotency { ledger.abandon(use.ledgerKey) }
    }
}
