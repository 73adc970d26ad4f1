import Glibc

/// Why storage could not open, read or write the data folder.
package enum StorageError: Error, Sendable, Hashable {
    /// Another process (or another open store) holds the folder's lock file.
    case locked(folder: String)
    /// A file holds bytes recovery cannot trust; the server must not start on it.
    case corrupt(file: String, offset: Int, reason: String)
    /// A file operation failed with `errno`, such as `ENOSPC` from `write` or `EIO` from `fdatasync`.
    case io(call: String, path: String, errno: Int32)
    /// The data folder is writable by its group or by others (`permissions`): another user
    /// could change or replace the journal. The server refuses to start (exit 2).
    case folderWritableByOthers(folder: String, permissions: UInt32)
    /// The data folder belongs to another user than the server's: that user could change
    /// it. The server refuses to start (exit 2).
    case folderOwnedByAnotherUser(folder: String, owner: UInt32, user: UInt32)
    /// The store was closed; it takes no more changes.
    case closed
    /// The database (PostgreSQL) cannot be reached, or cannot serve now; `reason` is for the log.
    case database(reason: String)
    /// The database refused the write for a reason retrying cannot mend (a missing table, a
    /// constraint the store should never break): a fault on the server's side.
    case databaseFault(reason: String)
    /// A change sets a photo whose bytes it did not bring (`ChangeRequest.photo`): a fault of
    /// the server's code, refused so that no trip refers to bytes the store lacks.
    case photoBytesMissing(digest: String)
}

extension StorageError {
    /// Whether the disk, the user's quota or the process's file size limit (RLIMIT_FSIZE,
    /// EFBIG) leaves no room: the API answers 507 rather than 503.
    package var isOutOfSpace: Bool {
        guard case .io(_, _, let code) = self else { return false }
        return code == ENOSPC || code == EDQUOT || code == EFBIG
    }
}

extension StorageError {
    /// Whether the data folder is one the server must not use: a setup to correct, not a
    /// failure to retry (exit 2, as for a bad flag).
    package var isUnsafeFolder: Bool {
        switch self {
        case .folderWritableByOthers, .folderOwnedByAnotherUser: true
        default: false
        }
    }
}

extension StorageError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .locked(let folder):
            "the data folder \(folder) is in use by another trips-server (its lock file is held)"
        case .corrupt(let file, let offset, let reason):
            "\(file) is damaged at byte \(offset): \(reason); refusing to start rather than lose changes"
        case .io(let call, let path, let code) where code == ELOOP:
            "\(call) \(path): it is a symbolic link, which the server does not follow in its data folder (errno \(code))"
        case .io(let call, let path, let code):
            "\(call) \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .folderWritableByOthers(let folder, let permissions):
            "the data folder \(folder) is writable by other users (mode \(String(permissions, radix: 8))), who could change "
                + "the trips or replace its files; refusing to use it: chmod go-w \(folder) (or chmod 700)"
        case .folderOwnedByAnotherUser(let folder, let owner, let user):
            "the data folder \(folder) belongs to user \(owner), not to this server's user \(user); refusing to use it: "
                + "run the server as that user, or chown \(user) \(folder)"
        case .closed:
            "the trip store is closed"
        case .database(let reason), .databaseFault(let reason):
            reason
        case .photoBytesMissing(let digest):
            "a change sets the photo \(digest) without bringing its bytes"
        }
    }
}
