import Foundation
import TripsDomain
import TripsPostgres

/// Reading the whole state: at start-up, and when an instance fell further behind than the
/// history keeps. The answers that grow with the data (the photos' rows, the trips, the
/// history, the idempotency keys) are taken row by row as they arrive, none held whole: a
/// result held whole stops at `PostgresConnectionConfiguration.maxHeldRowBytes`, past which a
/// server sending rows without end would have filled memory until the query's timeout.
extension PostgresTripTables {
    /// The whole state in one consistent snapshot of the tables: the list in order, the last
    /// `historyCapacity` events, and the idempotency keys.
    func load(historyCapacity: Int, ledger: IdempotencyLedger) throws(PostgresStoreError) -> State {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") { () throws(PostgresStoreError) in
            try readAll(historyCapacity: historyCapacity, ledger: ledger)
        }
    }

    /// `load`'s reading, in a transaction that sees the tables still (a snapshot, or the
    /// state row locked); the keys go into `ledger`, an empty one with the configured cap.
    func readAll(historyCapacity: Int, ledger: consuming IdempotencyLedger) throws(PostgresStoreError) -> State {
        let (revision, lastIssuedID) = try readState(locking: false)
        var photos: [String: TripPhoto] = [:]
        try forEachRow(of: Self.photosWithoutBytes) { (row) throws(PostgresStoreError) in
            let photo = try Self.photo(row)
            photos[photo.digest] = photo
        }
        let assembly = TripListAssembly(revision: revision, lastIssuedID: lastIssuedID)
        var batch: [TripListAssembly.Row] = []
        var strings = RecentStrings()
        var failure: PostgresStoreError?
        do throws(PostgresStoreError) {
            try query(Self.tripsInOrder) { row in
                guard failure == nil else { return }
                do throws(PostgresStoreError) {
                    batch.append(try Self.trip(row, photos: photos, strings: &strings))
                } catch {
                    failure = error
                }
                guard batch.count == Self.assemblyBatchSize else { return }
                assembly.add(batch)
                batch.removeAll(keepingCapacity: true)
            }
        } catch {
            _ = try? assembly.finish()
            throw error
        }
        assembly.add(batch)
        let built = Result { () throws(PostgresStoreError) in try assembly.finish() }
        if let failure { throw failure }
        let (list, keys) = try built.get()

        var events: [ChangeEvent] = []  // the newest first
        let newestChanges = PostgresStatement(
            "SELECT revision, event, data FROM trip_changes ORDER BY revision DESC LIMIT $1", [String(historyCapacity)])
        try forEachRow(of: newestChanges) { (row) throws(PostgresStoreError) in
            guard events.count < historyCapacity else { throw .damaged("more than the \(historyCapacity) changes asked for came") }
            events.append(try Self.event(row))
        }
        events.reverse()
        guard UInt64(events.count) <= revision else {
            throw .damaged("\(events.count) changes are stored, more than the revision \(revision) counts")
        }
        var history = ChangeHistory(capacity: historyCapacity, revision: revision - UInt64(events.count))
        for (index, event) in events.enumerated() {
            guard event.revision == history.revision + 1 else {
                throw .damaged("change \(event.revision) follows \(history.revision) (number \(index) of the history)")
            }
            history.append(event)
        }
        guard history.revision == revision else {
            throw .damaged("the last change is \(history.revision), the list's revision \(revision)")
        }

        let now = Int64(time(nil))
        try forEachRow(of: PostgresStatement("SELECT use FROM trip_idempotency_keys ORDER BY used_at, scope, key")) {
            (row) throws(PostgresStoreError) in
            ledger.finish(try Self.keyUse(row.first ?? nil), now: now)
        }
        return State(list: list, history: history, ledger: ledger, keys: keys)
    }

    /// Runs `statement`, handing `body` each row as text as it is read, none held; the first
    /// error `body` throws (or a value that is not UTF-8) ends it, the rows after it read and
    /// passed over so that the connection stays in step.
    func forEachRow(
        of statement: PostgresStatement, _ body: ([String?]) throws(PostgresStoreError) -> Void
    ) throws(PostgresStoreError) {
        var failure: PostgresStoreError?
        try query(statement) { row in
            guard failure == nil else { return }
            do throws(PostgresStoreError) {
                let texts = Result { () throws(PostgresConnectionError) in try row.texts() }
                try body(texts.mapError(PostgresStoreError.database).get())
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }
}
