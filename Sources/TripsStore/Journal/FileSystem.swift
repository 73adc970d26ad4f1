/// An open file as the file layer hands it out: a plain descriptor number.
///
/// Storage keeps each one in exactly one place and closes it through the same
/// `FileSystem` that opened it, so a test layer sees every operation.
package struct OpenFile: Sendable, Hashable {
    package let descriptor: Int32
    /// The path it was opened with, for error messages.
    package let path: String
}

/// How `FileSystem.open` opens a file for writing.
///
/// Every mode uses `O_APPEND`, so a write after `truncate(_:to:)` lands at the new end, never
/// past a hole, and `O_NOFOLLOW`: a symbolic link planted in the data folder is refused
/// (`ELOOP`), never written through. A file created is readable and writable by its owner
/// only (0600).
package enum OpenMode: Sendable, Hashable {
    /// Appends to the file, creating it when missing (journals, the lock file).
    case append
    /// Creates the file or empties it, then appends (new journals).
    case truncateAndAppend
    /// Creates the file, which must not exist (`O_EXCL`), then appends (snapshot temp files):
    /// nothing already there, not even a link to another file, is ever written to.
    case createNew
}

/// Who owns a file and who may do what with it, as `stat` tells.
package struct FileStatus: Sendable, Hashable {
    /// The owner's user id.
    package let owner: UInt32
    /// The permission bits (`st_mode & 0o7777`).
    package let permissions: UInt32
}

/// The file operations storage needs, so tests can count them and make any one fail.
///
/// Every call either does its whole job or throws `StorageError.io` naming the call, the
/// path and `errno`. Paths are absolute or relative to the working directory.
package protocol FileSystem: Sendable {
    /// Creates the folder and any missing parents, for their owner only (0700); an existing
    /// folder is fine.
    func createDirectory(_ path: String) throws(StorageError)
    /// The owner and permissions of `path` (`stat`: a symbolic link is followed).
    func status(_ path: String) throws(StorageError) -> FileStatus
    /// The names in a folder, without `.` and `..`.
    func contentsOfDirectory(_ path: String) throws(StorageError) -> [String]
    /// The whole file, or nil when it does not exist; a symbolic link is refused (`ELOOP`).
    func readFile(_ path: String) throws(StorageError) -> [UInt8]?
    /// Lends the whole file to `body`, read-only, and answers what it does; nil when the file
    /// does not exist. A symbolic link is refused (`ELOOP`). The bytes are valid only during
    /// the call.
    func withContents<Value>(
        of path: String, _ body: (FileContents) throws(StorageError) -> Value
    ) throws(StorageError) -> Value?
    func open(_ path: String, mode: OpenMode) throws(StorageError) -> OpenFile
    /// Takes an exclusive `flock` without waiting; false when someone else holds it.
    func tryLock(_ file: OpenFile) throws(StorageError) -> Bool
    /// Releases the `flock` at once. Closing alone may not: a child process forked in the
    /// meantime shares the open file description until it execs.
    func unlock(_ file: OpenFile)
    /// Writes all of `bytes` (looping over short writes).
    func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError)
    /// `fdatasync`: the data and the size are on disk.
    func synchronizeData(_ file: OpenFile) throws(StorageError)
    /// `fsync`: data and all metadata are on disk.
    func synchronize(_ file: OpenFile) throws(StorageError)
    /// `sync_file_range`: starts writing `range` of the file to the disk, and with `waiting`,
    /// returns once it is written. Makes nothing durable (no metadata, no cache flush); it
    /// keeps a large file from reaching its `fsync` with all of its bytes still in memory,
    /// which would hold up every other file's sync while they go out.
    func writeBack(_ file: OpenFile, range: Range<Int>, waiting: Bool) throws(StorageError)
    /// The file's length in bytes (`fstat`).
    func size(of file: OpenFile) throws(StorageError) -> Int
    /// Cuts the file to `length` bytes.
    func truncate(_ file: OpenFile, to length: Int) throws(StorageError)
    func close(_ file: OpenFile) throws(StorageError)
    /// Atomically replaces `destination` with `source`.
    func rename(_ source: String, to destination: String) throws(StorageError)
    /// Removes a file; a missing file is fine.
    func removeFile(_ path: String) throws(StorageError)
    /// `fsync` on the folder itself, so names created, renamed or removed in it are durable.
    func synchronizeDirectory(_ path: String) throws(StorageError)
}

extension FileSystem {
    /// The file read whole into memory (`readFile`): what a layer that cannot map files lends.
    package func withContents<Value>(
        of path: String, _ body: (FileContents) throws(StorageError) -> Value
    ) throws(StorageError) -> Value? {
        guard let bytes = try readFile(path) else { return nil }
        return try bytes.withUnsafeBytes { raw in Result { () throws(StorageError) in try body(FileContents(raw)) } }.get()
    }
}
