import Glibc
import TripsPlatform

/// The real file layer: Glibc calls through `systemCall`, which retries `EINTR`.
package struct PosixFileSystem: FileSystem {
    package init() {}

    package func createDirectory(_ path: String) throws(StorageError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if Glibc.mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .io(call: "mkdir", path: prefix, errno: errno)
            }
            prefix += "/"
        }
        // mkdir's EEXIST also covers a file of that name; opening it as a folder tells them apart.
        guard let directory = opendir(path) else { throw .io(call: "opendir", path: path, errno: errno) }
        closedir(directory)
    }

    package func status(_ path: String) throws(StorageError) -> FileStatus {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .io(call: "stat", path: path, errno: errno) }
        return FileStatus(owner: info.st_uid, permissions: info.st_mode & 0o7777)
    }

    package func contentsOfDirectory(_ path: String) throws(StorageError) -> [String] {
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

    package func readFile(_ path: String) throws(StorageError) -> [UInt8]? {
        guard let (descriptor, size) = try Self.openForReading(path) else { return nil }
        defer { Glibc.close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < bytes.count {
            let count = try Self.call("read", path) {
                bytes.withUnsafeMutableBytes { buffer in Glibc.read(descriptor, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            if count == 0 { break }  // the file shrank while we read it
            offset += count
        }
        if offset < bytes.count { bytes.removeSubrange(offset...) }
        return bytes
    }

    /// Maps the file (`mmap`, private and read-only) for `body`, and unmaps it after. Only the
    /// store that holds the folder's lock changes its files, and it replaces a snapshot by
    /// renaming a new one over it, never by cutting it short: the mapped bytes stay there.
    package func withContents<Value>(
        of path: String, _ body: (FileContents) throws(StorageError) -> Value
    ) throws(StorageError) -> Value? {
        guard let (descriptor, length) = try Self.openForReading(path) else { return nil }
        defer { Glibc.close(descriptor) }
        guard length > 0 else { return try body(FileContents(UnsafeRawBufferPointer(start: nil, count: 0))) }
        guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
            throw .io(call: "mmap", path: path, errno: errno)
        }
        defer { munmap(base, length) }
        return try body(FileContents(UnsafeRawBufferPointer(start: base, count: length), isMapped: true))
    }

    /// The file at `path` opened for reading, and its size; nil when there is none. The caller
    /// closes the descriptor.
    private static func openForReading(_ path: String) throws(StorageError) -> (descriptor: Int32, size: Int)? {
        let descriptor: Int32
        do {
            descriptor = try blockingSystemCall("open") { Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        } catch {
            if error.errno == ENOENT { return nil }
            throw .io(call: "open", path: path, errno: error.errno)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let failure = errno
            Glibc.close(descriptor)
            throw .io(call: "fstat", path: path, errno: failure)
        }
        return (descriptor, Int(info.st_size))
    }

    package func open(_ path: String, mode: OpenMode) throws(StorageError) -> OpenFile {
        let flags =
            switch mode {
            case .append: O_CREAT
            case .truncateAndAppend: O_CREAT | O_TRUNC
            case .createNew: O_CREAT | O_EXCL
            }
        let descriptor = try Self.call("open", path) { Glibc.open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | flags, 0o600) }
        return OpenFile(descriptor: descriptor, path: path)
    }

    package func tryLock(_ file: OpenFile) throws(StorageError) -> Bool {
        switch try? systemCall("flock", { flock(file.descriptor, LOCK_EX | LOCK_NB) }) {
        case .done?: return true
        case .wouldBlock?: return false  // another process holds it
        case nil: throw .io(call: "flock", path: file.path, errno: errno)
        }
    }

    package func unlock(_ file: OpenFile) {
        _ = try? Self.call("flock", file.path) { flock(file.descriptor, LOCK_UN) }
    }

    package func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) {
        let failure = bytes.withUnsafeBytes { buffer -> SystemError? in
            do throws(SystemError) {
                try writeAll(file.descriptor, buffer)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw .io(call: "write", path: file.path, errno: failure.errno) }
    }

    package func synchronizeData(_ file: OpenFile) throws(StorageError) {
        _ = try Self.call("fdatasync", file.path) { fdatasync(file.descriptor) }
    }

    package func synchronize(_ file: OpenFile) throws(StorageError) {
        _ = try Self.call("fsync", file.path) { fsync(file.descriptor) }
    }

    package func writeBack(_ file: OpenFile, range: Range<Int>, waiting: Bool) throws(StorageError) {
        guard let syncFileRange = Self.syncFileRange, !range.isEmpty else { return }
        let flags = waiting ? Self.waitBefore | Self.write | Self.waitAfter : Self.write
        _ = try Self.call("sync_file_range", file.path) {
            syncFileRange(file.descriptor, off_t(range.lowerBound), off_t(range.count), flags)
        }
    }

    /// `sync_file_range`, which Glibc declares only for `_GNU_SOURCE`, so Swift does not see
    /// it: looked up by name once (nil where the C library lacks it; a write-back is only a hint).
    private static let syncFileRange: (@convention(c) (Int32, off_t, off_t, UInt32) -> Int32)? = {
        guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, off_t, off_t, UInt32) -> Int32).self)
    }()
    // The flags of <fcntl.h>, hidden with the function.
    private static let waitBefore: UInt32 = 1
    private static let write: UInt32 = 2
    private static let waitAfter: UInt32 = 4

    package func size(of file: OpenFile) throws(StorageError) -> Int {
        var info = stat()
        guard fstat(file.descriptor, &info) == 0 else { throw .io(call: "fstat", path: file.path, errno: errno) }
        return Int(info.st_size)
    }

    package func truncate(_ file: OpenFile, to length: Int) throws(StorageError) {
        _ = try Self.call("ftruncate", file.path) { ftruncate(file.descriptor, off_t(length)) }
    }

    package func close(_ file: OpenFile) throws(StorageError) {
        // Never retry close on EINTR: on Linux the descriptor is already gone.
        guard Glibc.close(file.descriptor) == 0 else { throw .io(call: "close", path: file.path, errno: errno) }
    }

    package func rename(_ source: String, to destination: String) throws(StorageError) {
        guard Glibc.rename(source, destination) == 0 else { throw .io(call: "rename", path: source, errno: errno) }
    }

    package func removeFile(_ path: String) throws(StorageError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .io(call: "unlink", path: path, errno: errno) }
    }

    package func synchronizeDirectory(_ path: String) throws(StorageError) {
        let descriptor = try Self.call("open", path) { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { Glibc.close(descriptor) }
        _ = try Self.call("fsync", path) { fsync(descriptor) }
    }

    /// A file call through `systemCall` (EINTR retried), its failure named with the path.
    private static func call<Result: BinaryInteger>(
        _ name: StaticString, _ path: String, _ body: () -> Result
    ) throws(StorageError) -> Result {
        do {
            return try blockingSystemCall(name, body)
        } catch {
            throw .io(call: error.call, path: path, errno: error.errno)
        }
    }
}
