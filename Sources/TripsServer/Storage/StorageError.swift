import Glibc

/// Why storage could not open, read or write the data folder.
enum StorageError: Error, Sendable, Hashable {
    /// Another process (or another open store) holds the folder's lock file.
    case locked(folder: String)
    /// A file holds bytes recovery cannot trust; the server must not start on it.
    case corrupt(file: String, offset: Int, reason: String)
    /// A file operation failed with `errno`, such as `ENOSPC` from `write` or `EIO` from `fdatasync`.
    case io(call: String, path: String, errno: Int32)
    /// The store was closed; it takes no more changes.
    case closed
    /// The database (PostgreSQL) cannot be reached, or cannot serve now; `reason` is for the log.
    case database(reason: String)
    /// The database refused the write for a reason retrying cannot mend (a missing table, a
    /// constraint the store should never break): a fault on the server's side.
    case databaseFault(reason: String)
}

extension StorageError {
    /// Whether the disk, the user's quota or the process's file size limit (RLIMIT_FSIZE,
    /// EFBIG) leaves no room: the API answers 507 rather than 503.
    var isOutOfSpace: Bool {
        guard case .io(_, _, let code) = self else { return false }
        return code == ENOSPC || code == EDQUOT || code == EFBIG
    }
}

extension StorageError: CustomStringConvertible {
    var description: String {
        switch self {
        case .locked(let folder):
            "the data folder \(folder) is in use by another trips-server (its lock file is held)"
        case .corrupt(let file, let offset, let reason):
            "\(file) is damaged at byte \(offset): \(reason); refusing to start rather than lose changes"
        case .io(let call, let path, let code):
            "\(call) \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .closed:
            "the trip store is closed"
        case .database(let reason), .databaseFault(let reason):
            reason
        }
    }
}
