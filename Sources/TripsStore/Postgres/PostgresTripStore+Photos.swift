import Synchronization
import TripsDomain
import TripsPostgres

/// Serving photos: every instance serves every photo, from its cache or, on a miss, from
/// `trip_photos` (one round trip, then kept).
extension PostgresTripStore {
    /// The photo a trip of this instance's list refers to by `digest`, with its bytes; nil when
    /// no trip refers to it (nor is the database asked: a GET of an unknown digest costs it
    /// nothing), or when its row was pruned meanwhile.
    package func photo(digest: String) throws(StorageError) -> PhotoBytes? {
        guard let photo = state.withLock({ $0.tables.list.photos[digest] }) else { return nil }
        if let bytes = photoCache.bytes(digest) { return PhotoBytes(photo: photo, bytes: bytes) }
        let loaded: PhotoBytes?
        do {
            loaded = try Self.withTables(from: pool) { (tables) throws(PostgresStoreError) in try tables.photoBytes(of: photo) }
        } catch {
            let reason = "reading photo \(digest) from PostgreSQL failed: \(error)"
            throw error.handling == .fault ? .databaseFault(reason: reason) : .database(reason: reason)
        }
        if let loaded { photoCache.keep(loaded.bytes, for: digest) }
        return loaded
    }
}

extension PostgresTripTables {
    /// The bytes of `photo` from its row; nil when there is none.
    func photoBytes(of photo: TripPhoto) throws(PostgresStoreError) -> PhotoBytes? {
        let rows = try query("SELECT encode(bytes, 'hex') FROM trip_photos WHERE digest = $1", [photo.digest]).rows
        guard let row = rows.first else { return nil }
        return try Self.photoBytes(row, of: photo)
    }
}
