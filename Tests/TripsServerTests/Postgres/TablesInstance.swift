import Foundation
import TripsDomain

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// An "instance" of the server: its own connection to a schema, migrated, and the state it
/// loaded. Unchecked: each test thread uses its own.
final class TablesInstance: @unchecked Sendable {
    let tables: PostgresTripTables
    var state: PostgresTripTables.State

    init(schema: String) throws {
        let connection = try LiveDatabase.connect(to: schema)
        _ = try SchemaMigrator.migrate(connection)
        tables = PostgresTripTables(connection: connection)
        state = try tables.load(historyCapacity: 100, ledger: IdempotencyLedger())
    }

    deinit { tables.connection.close() }

    /// Commits each change in a transaction of its own; every one must succeed.
    func commit(_ changes: [TripChange]) throws {
        for change in changes {
            let results = try tables.commit([ChangeRequest { _ in change }], to: &state)
            guard case .success = results[0].result else { throw TestFailure("\(change): \(results[0])") }
        }
    }

    /// Makes `drafts` as lone appends (`ChangeRequest.readsNoList`), in one transaction when
    /// they can be; answers each one's plan.
    func append(_ drafts: [TripDraft]) throws -> [PlannedChange] {
        try tables.commit(drafts.map { draft in ChangeRequest(plan: { _ in .add(draft) }, readsNoList: true) }, to: &state)
    }

    /// The revisions `trip_changes` holds, in order.
    func changeRevisions() throws -> [Int] {
        try tables.connection.query("SELECT revision FROM trip_changes ORDER BY revision").rows.map { Int($0[0]!)! }
    }

    /// The idempotency keys the table holds, in order.
    func keys() throws -> [String] {
        try tables.connection.query("SELECT key FROM trip_idempotency_keys ORDER BY key").rows.map { $0[0]! }
    }

    /// The positions in the table, by id, in order.
    func positions() throws -> [(id: Int, key: Int64)] {
        try tables.connection.query("SELECT id, position FROM trips ORDER BY position").rows.map { (Int($0[0]!)!, Int64($0[1]!)!) }
    }
}
