import TripsDomain

/// The names of the files in a data folder, and who may use it.
///
///     lock                 flock'ed by the one server using the folder
///     snapshot             the list as of the start of journal generation N (see `Snapshot`)
///     snapshot.tmp         a snapshot being written; removed at start-up
///     journal-000000000N   framed `JournalRecord`s appended after that snapshot; while a
///     journal-000000000M   `Compaction` folds N..M-1 into a new snapshot, the writer appends
///                          to M, and start-up replays every generation from N upwards
///     photos/<sha256>      a photo's bytes, named by their SHA-256 (`PhotoFiles`)
///     photos/<sha256>.tmp  a photo being written; removed at start-up
package struct DataFolder: Sendable, Hashable {
    package let path: String

    package var lock: String { path + "/lock" }
    package var snapshot: String { path + "/snapshot" }
    package var snapshotTemporary: String { path + "/snapshot.tmp" }

    package var photos: String { path + "/photos" }

    package func photo(_ digest: String) -> String {
        photos + "/" + digest
    }

    package func photoTemporary(_ digest: String) -> String {
        photo(digest) + Self.temporarySuffix
    }

    package static let temporarySuffix = ".tmp"

    /// What a name in `photos` is: a photo's file, one being written, or neither (nil).
    package static func photoName(_ name: String) -> (digest: String, isTemporary: Bool)? {
        let isTemporary = name.hasSuffix(temporarySuffix)
        let digest = isTemporary ? String(name.dropLast(temporarySuffix.count)) : name
        return TripPhoto.isDigest(digest) ? (digest, isTemporary) : nil
    }

    package func journal(_ generation: UInt64) -> String {
        path + "/" + Self.journalName(generation)
    }

    package static let journalPrefix = "journal-"

    package static func journalName(_ generation: UInt64) -> String {
        let digits = String(generation)
        return journalPrefix + String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }

    /// The generation a journal's file name carries, or nil for any other name.
    package static func generation(ofJournal name: String) -> UInt64? {
        guard name.hasPrefix(journalPrefix) else { return nil }
        return UInt64(name.dropFirst(journalPrefix.count))
    }

    /// Refuses a folder that someone other than `user` (the server's) could change: one
    /// writable by its group or by others, or owned by another user. Either could replace a
    /// journal, plant a link, or swap the snapshot under the server.
    package func checkIsPrivate(_ status: FileStatus, user: UInt32) throws(StorageError) {
        guard status.owner == user else { throw .folderOwnedByAnotherUser(folder: path, owner: status.owner, user: user) }
        guard status.permissions & 0o022 == 0 else { throw .folderWritableByOthers(folder: path, permissions: status.permissions) }
    }

    /// Whether others than the owner can read or enter the folder: a folder made before the
    /// server created its own 0700 is still used, with a warning.
    package static func isOpenToOthers(_ status: FileStatus) -> Bool {
        status.permissions & 0o077 != 0
    }
}
