import TripsPostgres

/// Brings a database's schema up to date at start-up, the same way from every instance.
///
/// Everything happens in one transaction that first takes a transaction-scoped advisory
/// lock: two instances starting together take turns, and the second finds the work done.
/// A failing migration rolls back the whole run. A database that a newer server migrated
/// (a version this one does not know) is refused rather than used.
package enum SchemaMigrator {
    /// The advisory lock the migrating transaction holds: "trips" in ASCII, so that it does
    /// not collide by accident with another application's locks in the same database.
    package static let lockKey: Int64 = 0x74_7269_7073

    /// Applies the migrations the database lacks, in order; answers the versions applied by
    /// this call (none when the schema was up to date).
    package static func migrate(
        _ connection: PostgresConnection, to migrations: [SchemaMigration] = TripsSchema.migrations
    ) throws(SchemaMigrationError) -> [Int] {
        do {
            try connection.simpleQuery("BEGIN")
        } catch {
            throw .database(error)
        }
        do throws(SchemaMigrationError) {
            let applied = try migrateInTransaction(connection, to: migrations)
            do {
                try connection.simpleQuery("COMMIT")
            } catch {
                throw .database(error)
            }
            return applied
        } catch {
            _ = try? connection.simpleQuery("ROLLBACK")  // already failing; the error says why
            throw error
        }
    }

    private static func migrateInTransaction(
        _ connection: PostgresConnection, to migrations: [SchemaMigration]
    ) throws(SchemaMigrationError) -> [Int] {
        let done: Set<Int>
        do {
            _ = try connection.query("SELECT pg_advisory_xact_lock($1::bigint)", [String(lockKey)])
            try connection.simpleQuery(
                """
                CREATE TABLE IF NOT EXISTS trips_schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let rows = try connection.query("SELECT version FROM trips_schema_migrations").rows
            done = Set(rows.compactMap { row in row.first.flatMap { $0 }.flatMap { Int($0) } })
        } catch {
            throw .database(error)
        }
        let known = migrations.map(\.version).max() ?? 0
        if let newest = done.max(), newest > known { throw .newerSchema(found: newest, known: known) }
        var applied: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !done.contains(migration.version) {
            do {
                try connection.simpleQuery(migration.sql)
                _ = try connection.query(
                    "INSERT INTO trips_schema_migrations (version, name) VALUES ($1::integer, $2)",
                    [String(migration.version), migration.name])
            } catch {
                throw .migrationFailed(version: migration.version, name: migration.name, error)
            }
            applied.append(migration.version)
        }
        return applied
    }
}
