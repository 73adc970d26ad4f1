/// The names of the files in a data folder.
///
///     lock                 flock'ed by the one server using the folder
///     snapshot             the list as of the start of journal generation N (see `Snapshot`)
///     snapshot.tmp         a snapshot being written; removed at start-up
///     journal-000000000N   framed `JournalRecord`s appended after that snapshot; while a
///     journal-000000000M   `Compaction` folds N..M-1 into a new snapshot, the writer appends
///                          to M, and start-up replays every generation from N upwards
struct DataFolder: Sendable, Hashable {
    let path: String

    var lock: String { path + "/lock" }
    var snapshot: String { path + "/snapshot" }
    var snapshotTemporary: String { path + "/snapshot.tmp" }

    func journal(_ generation: UInt64) -> String {
        path + "/" + Self.journalName(generation)
    }

    static let journalPrefix = "journal-"

    static func journalName(_ generation: UInt64) -> String {
        let digits = String(generation)
        return journalPrefix + String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }

    /// The generation a journal's file name carries, or nil for any other name.
    static func generation(ofJournal name: String) -> UInt64? {
        guard name.hasPrefix(journalPrefix) else { return nil }
        return UInt64(name.dropFirst(journalPrefix.count))
    }
}
