/// The PostgreSQL store's tables, as the migrations that make them.
///
/// - `trips_state`: one row, the list's revision and the highest id issued. Every write
///   locks it (`FOR UPDATE` first, or an append transaction's `UPDATE`), which makes writers
///   of all instances take turns.
/// - `trips`: one row per trip; `position` orders the list (keys with gaps, `TripPositions`,
///   so moving k trips rewrites k rows; unique once a transaction ends, since spreading keys
///   out rewrites several rows in one statement). `start` is the `Double` the API holds:
///   seconds since 2001-01-01 UTC, Foundation's reference date (from any other origin some
///   instants would round); `starts_at` is the same instant as a `timestamptz`, for SQL.
///   `price` is `numeric`, exact.
/// - `trip_changes`: one row per change, by revision: the change as the journal writes it
///   (what other instances replay) and its event for `/trips/changes`.
/// - `trip_idempotency_keys`: the keys of recent changes and their first answers.
/// - `trip_photos` (version 4): each photo's bytes once, by their SHA-256, with its media
///   type and size; `trips.photo_digest` refers to it (a foreign key: no trip can name a
///   photo the table lacks). Written in the transaction of the change that sets it, and rows no
///   trip refers to are pruned with the changes.
///
/// - `trip_changes.positions` (version 5): the position keys each change gave trips, as
///   `id:key` pairs (`TripPositionKeys.Assignment`), so that other instances keep every key
///   in memory and place trips without asking the table; NULL for a sort, and for changes
///   made before, which have the next transaction read the keys from `trips`.
///
/// Both of the last are pruned (`PostgresRetention`); version 2 indexes the keys by when
/// they were used, which pruning asks; version 3 gives each key the scope it was used in (the
/// token's name; empty without tokens, as every key before), so two tokens' keys never meet.
package enum TripsSchema {
    package static let migrations = [
        SchemaMigration(
            version: 1, name: "trips, their order, the changes and idempotency keys",
            sql: """
                CREATE TABLE trips_state (
                    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                    revision bigint NOT NULL CHECK (revision >= 0),
                    last_issued_id bigint NOT NULL CHECK (last_issued_id >= 0)
                );
                INSERT INTO trips_state (revision, last_issued_id) VALUES (0, 0);
                CREATE TABLE trips (
                    id bigint PRIMARY KEY CHECK (id > 0),
                    position bigint NOT NULL UNIQUE DEFERRABLE INITIALLY DEFERRED,
                    version bigint NOT NULL,
                    city text NOT NULL,
                    country text NOT NULL,
                    nights integer NOT NULL,
                    is_favorite boolean NOT NULL,
                    image_name text NOT NULL,
                    price numeric NOT NULL CHECK (price >= 0),
                    start double precision NOT NULL,
                    starts_at timestamptz GENERATED ALWAYS AS (to_timestamp(start + 978307200)) STORED,
                    notes text NOT NULL
                );
                CREATE TABLE trip_changes (
                    revision bigint PRIMARY KEY,
                    record text NOT NULL,
                    event text NOT NULL,
                    data text NOT NULL,
                    made_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE TABLE trip_idempotency_keys (
                    key text PRIMARY KEY,
                    use text NOT NULL,
                    used_at bigint NOT NULL
                );
                """),
        SchemaMigration(
            version: 2, name: "idempotency keys by when they were used",
            sql: "CREATE INDEX trip_idempotency_keys_used_at ON trip_idempotency_keys (used_at)"),
        SchemaMigration(
            version: 3, name: "idempotency keys in the scope of a token",
            sql: """
                ALTER TABLE trip_idempotency_keys ADD COLUMN scope text NOT NULL DEFAULT '';
                ALTER TABLE trip_idempotency_keys DROP CONSTRAINT trip_idempotency_keys_pkey;
                ALTER TABLE trip_idempotency_keys ADD PRIMARY KEY (scope, key);
                """),
        SchemaMigration(
            version: 4, name: "trip photos, by the SHA-256 of their bytes",
            sql: """
                CREATE TABLE trip_photos (
                    digest text PRIMARY KEY CHECK (digest ~ '^[0-9a-f]{64}$'),
                    type text NOT NULL,
                    width integer NOT NULL CHECK (width > 0),
                    height integer NOT NULL CHECK (height > 0),
                    bytes bytea NOT NULL
                );
                ALTER TABLE trips ADD COLUMN photo_digest text REFERENCES trip_photos (digest);
                CREATE INDEX trips_photo_digest ON trips (photo_digest) WHERE photo_digest IS NOT NULL;
                """),
        SchemaMigration(
            version: 5, name: "the position keys each change gave",
            sql: "ALTER TABLE trip_changes ADD COLUMN positions text"),
    ]
}
