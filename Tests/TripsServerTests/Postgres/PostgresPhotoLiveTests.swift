import Foundation
import Synchronization
import Testing
import TripsDomain
import TripsFormats
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// Photos in PostgreSQL: `trip_photos`, shared by every instance.
@Suite(.enabled(if: LiveDatabase.isConfigured(LiveDatabase.socketURL), "needs scripts/lib/postgres.sh start"), .tags(.live))
struct PostgresPhotoLiveTests {
    /// Runs `body` with the configuration of a new, empty database, then drops the database.
    private func inFreshDatabase(_ body: @escaping @Sendable (PostgresConnectionConfiguration) async throws -> Void) async throws {
        let database = try await onOwnThread { try LiveDatabase.createDatabase(named: "trips_photos") }
        defer { database.drop() }
        try await body(database.configuration)
    }

    private func photoRows(_ configuration: PostgresConnectionConfiguration) throws -> [[String?]] {
        let connection = try PostgresConnection.connect(configuration)
        defer { connection.close() }
        return try connection.query("SELECT digest, type, width, height, octet_length(bytes) FROM trip_photos ORDER BY digest").rows
    }

    @Test func aPhotoSetOnOneInstanceIsServedByTheOther() async throws {
        try await inFreshDatabase { configuration in
            let first = try await onOwnThread { try PostgresTripStore(connection: configuration) }
            defer { first.close() }
            let second = try await onOwnThread { try PostgresTripStore(connection: configuration, pollInterval: .seconds(30)) }
            defer { second.close() }
            let heard = DispatchSemaphore(value: 0)
            second.setChangeListener { _ in heard.signal() }
            let photo = examplePhotoBytes(1, count: 70_000, format: .webp)
            try await first.setPhoto(2, photo)
            #expect(try await onOwnThread { heard.wait(timeout: .now() + .seconds(10 * TestTimeout.scale)) } == .success)
            #expect(second.list[2]?.photo == photo.photo)
            // Read from the table: its cache never had it.
            #expect(try await onOwnThread { try second.photo(digest: photo.photo.digest) } == photo)
            let others = samplePhotos(but: 2)
            #expect(second.statistics.store.photos == others.count + 1 && second.statistics.store.photoBytes == others.bytes + 70_000)
            let rows = try photoRows(configuration)
            #expect(rows.contains([photo.photo.digest, "image/webp", "4", "3", "70000"]))
            // Trip 2's sample photo keeps its row until the next prune.
            #expect(rows.map { $0[0] } == (samplePhotos().digests + [photo.photo.digest]).sorted())
            // A third instance loads the trip with its photo.
            let third = try await onOwnThread { try PostgresTripStore(connection: configuration, photoCacheBytes: 0) }
            defer { third.close() }
            #expect(third.list[2]?.photo == photo.photo)
            #expect(try await onOwnThread { try third.photo(digest: photo.photo.digest) } == photo)
        }
    }

    @Test func tripsWithTheSamePhotoShareOneRowWhichIsPrunedOnceNoneRefersToIt() async throws {
        try await inFreshDatabase { configuration in
            let store = try await onOwnThread { try PostgresTripStore(connection: configuration) }
            defer { store.close() }
            let (shared, other) = (examplePhotoBytes(2), examplePhotoBytes(3))
            try await store.setPhoto(1, shared)
            try await store.setPhoto(3, shared)
            try await store.setPhoto(4, other)
            #expect(try photoRows(configuration).count == SampleTrips.photos.count + 2)  // the samples' own too
            try await store.setPhoto(1, nil)
            try await store.make(.delete([3]))
            try await onOwnThread {
                try PostgresTripStore.withTables(from: store.pool) { (tables) throws(PostgresStoreError) in
                    try tables.prune(PostgresRetention(changes: 1_000), now: 0)
                }
            }
            #expect(try photoRows(configuration).map { $0[0] } == (samplePhotos(but: 1, 3, 4).digests + [other.photo.digest]).sorted())
            // Set again, the photo's row comes back with it.
            try await store.setPhoto(5, shared)
            #expect(try photoRows(configuration).count == samplePhotos(but: 1, 3, 4).count + 2)
            #expect(try await onOwnThread { try store.photo(digest: shared.photo.digest) } == shared)
        }
    }

    @Test func newTablesAreSeededWithTheSamplesPhotosRowsOnce() async throws {
        let expected: [[String?]] = SampleTrips.photos.sorted { $0.photo.digest < $1.photo.digest }.map {
            [$0.photo.digest, "image/jpeg", "480", "320", String($0.bytes.count)]
        }
        try await inFreshDatabase { configuration in
            try await onOwnThread { try PostgresTripStore(connection: configuration).close() }
            #expect(try photoRows(configuration) == expected)
            // A second instance finds the tables seeded, and adds nothing.
            let second = try await onOwnThread { try PostgresTripStore(connection: configuration, photoCacheBytes: 0) }
            defer { second.close() }
            #expect(second.list == SampleTrips.list)
            #expect(try photoRows(configuration) == expected)
            for photo in SampleTrips.photos {
                #expect(try await onOwnThread { try second.photo(digest: photo.photo.digest) } == photo)
            }
        }
        try await inFreshDatabase { configuration in
            try await onOwnThread { try PostgresTripStore(connection: configuration, seedSamples: false).close() }
            #expect(try photoRows(configuration).isEmpty)
        }
    }

    @Test func aDatabaseWithoutThePhotoTableGainsIt() async throws {
        let trip = try await inFreshSchema(named: "trips_photo_migration") { schema in
            let connection = try LiveDatabase.connect(to: schema)
            defer { connection.close() }
            _ = try SchemaMigrator.migrate(connection, to: Array(TripsSchema.migrations.prefix(3)))
            // A trip as version 3 wrote it.
            _ = try connection.query(
                """
                INSERT INTO trips (id, position, version, city, country, nights, is_favorite, image_name, price, start, notes)
                VALUES (2, 1, 0, 'Vancouver', 'Canada', 3, false, 'vancouver', 1299.99, 0, 'Stanley Park by bike.')
                """)
            _ = try connection.query("UPDATE trips_state SET last_issued_id = 2")
            #expect(try SchemaMigrator.migrate(connection) == [4, 5])
            return try PostgresTripTables(connection: connection).load(historyCapacity: 10, ledger: IdempotencyLedger()).list[2]
        }
        #expect(trip?.city == "Vancouver" && trip?.photo == nil)
    }
}
