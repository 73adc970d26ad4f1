import TripsDomain

/// What the store's writer has done, for the metrics: journal syncs (how many, how long,
/// how many bytes), compactions, and writes that failed, by kind; PostgreSQL's write
/// transactions; and the photos stored.
package struct StoreStatistics: Sendable, Equatable {
    /// The upper bounds of the sync-latency histogram's buckets, in seconds.
    package static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    package var syncs: UInt64 = 0
    /// Syncs by bucket, each counted in the first it fits (the last: +Inf).
    package var syncBuckets = Array(repeating: UInt64(0), count: bucketBounds.count + 1)
    package var syncSeconds: Double = 0
    package var bytesWritten: UInt64 = 0
    package var compactions: UInt64 = 0
    /// Writes refused for want of space (507), and for any other failure (503).
    package var failedWritesNoSpace: UInt64 = 0
    package var failedWritesOther: UInt64 = 0
    /// The photos the list's trips refer to, each once however many trips share it, and
    /// their bytes: what every store keeps (`countingPhotos(of:)` fills them in).
    package var photos = 0
    package var photoBytes = 0
    /// A PostgreSQL store's write transactions; nil for the stores without them.
    package var writeTransactions: WriteTransactionStatistics?

    /// These statistics with the photos `list` refers to counted.
    package func countingPhotos(of list: borrowing TripList) -> StoreStatistics {
        var statistics = self
        statistics.photos = list.photos.count
        statistics.photoBytes = list.photos.byteCount
        return statistics
    }

    package mutating func recordSync(bytes: Int, seconds: Double) {
        syncs &+= 1
        bytesWritten &+= UInt64(bytes)
        syncSeconds += seconds
        syncBuckets[Self.bucketBounds.firstIndex { seconds <= $0 } ?? Self.bucketBounds.count] &+= 1
    }

    package mutating func recordFailure(_ failure: StorageError) {
        if failure.isOutOfSpace { failedWritesNoSpace &+= 1 } else { failedWritesOther &+= 1 }
    }
}
