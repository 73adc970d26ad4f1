/// One step of the database's schema, applied once and in order by `SchemaMigrator`.
///
/// A migration never changes once it has shipped: a change to the schema is a new one.
package struct SchemaMigration: Sendable {
    package let version: Int
    /// What it does, kept in `trips_schema_migrations` for whoever reads the database.
    package let name: String
    /// Fixed SQL, one or more statements: nothing built from data.
    package let sql: StaticString
}
