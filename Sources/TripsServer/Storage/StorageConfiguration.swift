/// When the journal is compacted into a snapshot.
struct StorageConfiguration: Sendable, Hashable {
    /// Compact once the journal holds more bytes than this. Default: 4 MiB.
    var compactionBytes: Int
    /// Compact once the journal holds more records than this. Default: 10,000.
    var compactionRecords: Int

    init(compactionBytes: Int = 4 << 20, compactionRecords: Int = 10_000) {
        self.compactionBytes = compactionBytes
        self.compactionRecords = compactionRecords
    }
}
