import Glibc

/// The real file layer: Glibc calls, retrying `EINTR`.
struct PosixFileSystem: FileSystem {
    init() {}

    func createDirectory(_ path: String) throws(StorageError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if Glibc.mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .io(call: "mkdir", path: prefix, errno: errno)
            }
            prefix += "/"
        }
        // mkdir's EEXIST also covers a file of that name; opening it as a folder tells them apart.
        guard let directory = opendir(path) else { throw .io(call: "opendir", path: path, errno: errno) }
        closedir(directory)
    }

    func contentsOfDirectory(_ path: String) throws(StorageError) -> [String] {
        guard let directory = opendir(path) else { throw .io(call: "opendir", path: path, errno: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    func readFile(_ path: String) throws(StorageError) -> [UInt8]? {
        let descriptor = Self.retrying { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .io(call: "open", path: path, errno: errno)
        }
        defer { Glibc.close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .io(call: "fstat", path: path, errno: errno) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Self.retrying { Glibc.read(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset) }
            }
            guard count >= 0 else { throw .io(call: "read", path: path, errno: errno) }
            if count == 0 { break }  // the file shrank while we read it
            offset += count
        }
        if offset < bytes.count { bytes.removeSubrange(offset...) }
        return bytes
    }

    func open(_ path: String, mode: OpenMode) throws(StorageError) -> OpenFile {
        let flags = switch mode {
        case .append: O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC
        case .truncateAndAppend: O_WRONLY | O_APPEND | O_TRUNC | O_CREAT | O_CLOEXEC
        }
        let descriptor = Self.retrying { Glibc.open(path, flags, 0o644) }
        guard descriptor >= 0 else { throw .io(call: "open", path: path, errno: errno) }
        return OpenFile(descriptor: descriptor, path: path)
    }

    func tryLock(_ file: OpenFile) throws(StorageError) -> Bool {
        if Self.retrying({ flock(file.descriptor, LOCK_EX | LOCK_NB) }) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw .io(call: "flock", path: file.path, errno: errno)
    }

    func unlock(_ file: OpenFile) {
        _ = Self.retrying { flock(file.descriptor, LOCK_UN) }
    }

    func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Self.retrying { Glibc.write(file.descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset) }
            }
            guard count > 0 else { throw .io(call: "write", path: file.path, errno: count == 0 ? EIO : errno) }
            offset += count
        }
    }

    func synchronizeData(_ file: OpenFile) throws(StorageError) {
        guard Self.retrying({ fdatasync(file.descriptor) }) == 0 else {
            throw .io(call: "fdatasync", path: file.path, errno: errno)
        }
    }

    func synchronize(_ file: OpenFile) throws(StorageError) {
        guard Self.retrying({ fsync(file.descriptor) }) == 0 else { throw .io(call: "fsync", path: file.path, errno: errno) }
    }

    func truncate(_ file: OpenFile, to length: Int) throws(StorageError) {
        guard Self.retrying({ ftruncate(file.descriptor, off_t(length)) }) == 0 else {
            throw .io(call: "ftruncate", path: file.path, errno: errno)
        }
    }

    func close(_ file: OpenFile) throws(StorageError) {
        // Never retry close on EINTR: on Linux the descriptor is already gone.
        guard Glibc.close(file.descriptor) == 0 else { throw .io(call: "close", path: file.path, errno: errno) }
    }

    func rename(_ source: String, to destination: String) throws(StorageError) {
        guard Glibc.rename(source, destination) == 0 else { throw .io(call: "rename", path: source, errno: errno) }
    }

    func removeFile(_ path: String) throws(StorageError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .io(call: "unlink", path: path, errno: errno) }
    }

    func synchronizeDirectory(_ path: String) throws(StorageError) {
        let descriptor = Self.retrying { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw .io(call: "open", path: path, errno: errno) }
        defer { Glibc.close(descriptor) }
        guard Self.retrying({ fsync(descriptor) }) == 0 else { throw .io(call: "fsync", path: path, errno: errno) }
    }

    /// Repeats a call that failed with `EINTR`; any other result (and `errno`) is the caller's.
    private static func retrying<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}
