import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import TripsDomain
@testable import TripsServer
@testable import TripsStore

/// A fresh folder under the temporary directory, removed when `body` returns.
func withStorageFolder<T>(_ body: (String) async throws -> T) async rethrows -> T {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("trips-storage-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Remembers every line storage logs.
final class CollectingLog: StorageLog {
    private let lines = Mutex<[String]>([])

    var warnings: [String] { lines.withLock { $0.filter { $0.hasPrefix("warning: ") } } }

    func warning(_ message: String) { lines.withLock { $0.append("warning: " + message) } }
    func info(_ message: String) { lines.withLock { $0.append("info: " + message) } }
}

extension TripStore {
    /// Opens a store on `folder` with samples off unless asked, and a log that stays quiet.
    static func open(
        _ folder: String, samples: Bool = false, fileSystem: any FileSystem = PosixFileSystem(),
        log: any StorageLog = CollectingLog(), configuration: StorageConfiguration = StorageConfiguration()
    ) throws(StorageError) -> TripStore {
        try TripStore(directory: folder, seedSamples: samples, configuration: configuration, fileSystem: fileSystem, log: log)
    }

    /// Makes a change and waits until it is durable (or failed).
    @discardableResult
    func apply(_ change: TripChange) async -> Result<Mutation, MutationError> {
        await mutateAndWait { _ in change }
    }

    /// Makes a change, waits until it is durable, and throws when it failed.
    @discardableResult
    func commit(_ change: TripChange) async throws(MutationError) -> Mutation {
        try await apply(change).get()
    }

    func mutateAndWait(_ plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange?) async
        -> Result<Mutation, MutationError>
    {
        await withCheckedContinuation { continuation in
            mutate(plan) { continuation.resume(returning: $0) }
        }
    }
}

extension Result where Failure == MutationError {
    /// The storage error this failed with, if any.
    var storageError: StorageError? {
        guard case .failure(.storage(let error)) = self else { return nil }
        return error
    }

    var succeeded: Bool {
        if case .success = self { return true }
        return false
    }
}

/// A draft with an exact price and a start date that is not a whole millisecond.
func storageDraft(_ city: String, price: String = "1299.99", start: Date = Date(timeIntervalSince1970: 1_803_859_200))
    -> TripDraft
{
    TripDraft(
        city: city, country: "Portugal", nights: 4, isFavorite: false, imageName: "lisbon",
        price: Decimal(string: price, locale: nil)!, start: start, notes: "Tram 28 \"early\"\n✓")
}

/// One of every kind of change, starting from the samples (ids 1…6), with exact prices and dates.
let everyKindOfChange: [TripChange] = [
    .add(storageDraft("Lisbon", price: "0.1", start: Date(timeIntervalSinceReferenceDate: 800_000_000.123456789))),
    .setFavorite(2, true),
    .move(ReorderDifference(sources: [7, 3], destination: .before(1))),
    .move(ReorderDifference(sources: [1], destination: .end)),
    .makeFavorites([3, 7, 2]),
    .replace(4, storageDraft("Porto", price: "1299.99")),
    .delete([6]),
    .sort(.price),
    .sort(.start),
    .add(storageDraft("Faro", price: "12345678901234567890.0123456789")),
    .add([storageDraft("Évora"), storageDraft("Sines")], before: 2),
]

/// The file layer tests use: the real one, counting every call, with faults on demand.
final class FaultyFileSystem: FileSystem {
    enum Operation: String, Sendable {
        case createDirectory, status, contentsOfDirectory, readFile, open, tryLock, write, synchronizeData, synchronize, writeBack
        case size, truncate, close, rename, removeFile, synchronizeDirectory
    }

    /// Holds the next `fdatasync` until released, so a test can queue work behind it.
    final class Gate: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
    }

    private struct State {
        var operations: [Operation] = []
        /// Operations that fail once, the next time they are called, with this errno.
        var failures: [Operation: (errno: Int32, partial: Bool)] = [:]
        /// Every operation from this index on fails: the process "died" there.
        var crashAt: Int?
        /// The operation at this index fails once.
        var failAt: Int?
        var syncGate: Gate?
        /// Holds the next `fsync` of a snapshot being written (a compaction's) until released.
        var snapshotGate: Gate?
        var writeBacks: [(range: Range<Int>, waiting: Bool)] = []
        /// The owner `status` reports instead of the real one.
        var reportedOwner: UInt32?
    }

    private let real = PosixFileSystem()
    private let state = Mutex(State())

    var operations: [Operation] { state.withLock { $0.operations } }
    /// Every `writeBack` call, in order.
    var writeBacks: [(range: Range<Int>, waiting: Bool)] { state.withLock { $0.writeBacks } }
    func count(_ operation: Operation) -> Int { operations.filter { $0 == operation }.count }

    /// The next call of `operation` fails with `errno`; a partial write writes half first.
    func failNext(_ operation: Operation, errno: Int32, partial: Bool = false) {
        state.withLock { $0.failures[operation] = (errno, partial) }
    }

    /// Every operation after the next `count` fails with EIO, as if the process died there
    /// (a close still closes, as the kernel would).
    func crash(afterOperations count: Int) {
        state.withLock { $0.crashAt = $0.operations.count + count }
    }

    /// The operation after the next `count` fails once with EIO; the rest work.
    func failOnce(afterOperations count: Int) {
        state.withLock { $0.failAt = $0.operations.count + count }
    }

    /// Whether the crash point (or the single failure) was reached.
    var hasCrashed: Bool {
        state.withLock { state in (state.crashAt ?? state.failAt).map { state.operations.count > $0 } ?? false }
    }

    /// Holds the next compaction in the middle of writing its snapshot.
    func holdNextSnapshotSync() -> Gate {
        let gate = Gate()
        state.withLock { $0.snapshotGate = gate }
        return gate
    }

    func holdNextDataSync() -> Gate {
        let gate = Gate()
        state.withLock { $0.syncGate = gate }
        return gate
    }

    /// Counts the call and decides whether it fails.
    private func check(_ operation: Operation, path: String) throws(StorageError) -> Bool {
        let fault = state.withLock { state -> (errno: Int32, partial: Bool)? in
            state.operations.append(operation)
            if let crashAt = state.crashAt, state.operations.count > crashAt { return (EIO, false) }
            if state.failAt == state.operations.count - 1 { return (EIO, false) }
            return state.failures.removeValue(forKey: operation)
        }
        guard let fault else { return false }
        if fault.partial { return true }
        throw .io(call: "\(operation.rawValue) (injected)", path: path, errno: fault.errno)
    }

    private func injected(_ operation: Operation, _ path: String) throws(StorageError) {
        if try check(operation, path: path) { throw .io(call: "\(operation.rawValue) (injected)", path: path, errno: ENOSPC) }
    }

    func createDirectory(_ path: String) throws(StorageError) {
        try injected(.createDirectory, path)
        try real.createDirectory(path)
    }

    /// `status` says every file belongs to `owner`, as if another user had made them.
    func reportOwner(_ owner: UInt32) {
        state.withLock { $0.reportedOwner = owner }
    }

    func status(_ path: String) throws(StorageError) -> FileStatus {
        try injected(.status, path)
        let status = try real.status(path)
        guard let owner = state.withLock({ $0.reportedOwner }) else { return status }
        return FileStatus(owner: owner, permissions: status.permissions)
    }

    func contentsOfDirectory(_ path: String) throws(StorageError) -> [String] {
        try injected(.contentsOfDirectory, path)
        return try real.contentsOfDirectory(path)
    }

    func readFile(_ path: String) throws(StorageError) -> [UInt8]? {
        try injected(.readFile, path)
        return try real.readFile(path)
    }

    func open(_ path: String, mode: OpenMode) throws(StorageError) -> OpenFile {
        try injected(.open, path)
        return try real.open(path, mode: mode)
    }

    func tryLock(_ file: OpenFile) throws(StorageError) -> Bool {
        try injected(.tryLock, file.path)
        return try real.tryLock(file)
    }

    func unlock(_ file: OpenFile) {
        real.unlock(file)
    }

    func write(_ file: OpenFile, _ bytes: [UInt8]) throws(StorageError) {
        if try check(.write, path: file.path) {
            try real.write(file, Array(bytes.prefix(bytes.count / 2)))
            throw .io(call: "write (injected)", path: file.path, errno: ENOSPC)
        }
        try real.write(file, bytes)
    }

    func synchronizeData(_ file: OpenFile) throws(StorageError) {
        if let gate = state.withLock({ state in
            defer { state.syncGate = nil }
            return state.syncGate
        }) {
            gate.entered.signal()
            gate.release.wait()
        }
        try injected(.synchronizeData, file.path)
        try real.synchronizeData(file)
    }

    func synchronize(_ file: OpenFile) throws(StorageError) {
        if file.path.hasSuffix("/snapshot.tmp"),
            let gate = state.withLock({ state in
                defer { state.snapshotGate = nil }
                return state.snapshotGate
            })
        {
            gate.entered.signal()
            gate.release.wait()
        }
        try injected(.synchronize, file.path)
        try real.synchronize(file)
    }

    func size(of file: OpenFile) throws(StorageError) -> Int {
        try injected(.size, file.path)
        return try real.size(of: file)
    }

    func writeBack(_ file: OpenFile, range: Range<Int>, waiting: Bool) throws(StorageError) {
        try injected(.writeBack, file.path)
        state.withLock { $0.writeBacks.append((range, waiting)) }
        try real.writeBack(file, range: range, waiting: waiting)
    }

    func truncate(_ file: OpenFile, to length: Int) throws(StorageError) {
        try injected(.truncate, file.path)
        try real.truncate(file, to: length)
    }

    func close(_ file: OpenFile) throws(StorageError) {
        do {
            try injected(.close, file.path)
        } catch {
            try? real.close(file)
            throw error
        }
        try real.close(file)
    }

    func rename(_ source: String, to destination: String) throws(StorageError) {
        try injected(.rename, source)
        try real.rename(source, to: destination)
    }

    func removeFile(_ path: String) throws(StorageError) {
        try injected(.removeFile, path)
        try real.removeFile(path)
    }

    func synchronizeDirectory(_ path: String) throws(StorageError) {
        try injected(.synchronizeDirectory, path)
        try real.synchronizeDirectory(path)
    }
}

/// The file's bytes (the test fails when it is missing).
func contents(of path: String) throws -> [UInt8] {
    try #require(try PosixFileSystem().readFile(path))
}

func overwrite(_ path: String, with bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The payloads of a snapshot's (or a journal's) records, in order, up to the first that does
/// not read whole.
func recordPayloads(_ bytes: [UInt8]) -> [[UInt8]] {
    var payloads: [[UInt8]] = []
    var offset = 0
    while offset < bytes.count, case .record(let payload, let next) = bytes.withUnsafeBytes({ RecordFrame.read($0, at: offset) }) {
        payloads.append(Array(bytes[payload]))
        offset = next
    }
    return payloads
}
