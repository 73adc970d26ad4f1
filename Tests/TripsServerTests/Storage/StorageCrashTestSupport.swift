import Dispatch
import Foundation
import Glibc
import Synchronization
import TripsDomain

/// The `trips-server` executable SwiftPM built next to the test bundle.
///
/// `swift build` and `swift build --build-tests` both link it into the folder that holds
/// `TripsPackageTests.xctest`; `swift test` alone may not, so a missing one fails the test
/// with what to run rather than skipping it.
func tripsServerExecutable() throws -> String {
    let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var folder = URL(fileURLWithPath: running).deletingLastPathComponent()
    // The test binary sits in the products folder on Linux, three levels inside a bundle on macOS.
    for _ in 0..<4 {
        let candidate = folder.appendingPathComponent("trips-server").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    throw TestFailure(
        "no trips-server executable next to the test bundle \(running): run `swift build` "
            + "(or `swift build --build-tests`) with the same scratch path before `swift test`")
}

/// Everything a file descriptor yields until end of file, read on a thread of its own.
final class OutputCollector: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    /// Signalled after each read that ended a line, and at end of file.
    private let lineEnded = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let isEnded = Atomic(false)

    /// Starts reading `pipe`; the thread ends at end of file (when the child and every copy
    /// of the write end are gone).
    init(_ pipe: Pipe) {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                bytes.withLock { $0.append(contentsOf: chunk[0..<count]) }
                if chunk[0..<count].contains(UInt8(ascii: "\n")) { lineEnded.signal() }
            }
            withExtendedLifetime(pipe) {}
            isEnded.store(true, ordering: .sequentiallyConsistent)
            lineEnded.signal()
            ended.signal()
        }
        thread.name = "trips-crash-test-output"
        thread.start()
    }

    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }

    /// The first whole line that starts with `prefix`; nil at end of file without one, or after `timeout`.
    func waitForLine(startingWith prefix: String, timeout: DispatchTimeInterval) -> String? {
        let deadline = DispatchTime.now() + timeout
        while true {
            let wasEnded = isEnded.load(ordering: .sequentiallyConsistent)
            if let line = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().first(where: { $0.hasPrefix(prefix) }) {
                return String(line)
            }
            guard !wasEnded, lineEnded.wait(timeout: deadline) == .success else { return nil }
        }
    }

    /// Whether end of file came within `timeout`.
    func waitForEnd(timeout: DispatchTimeInterval) -> Bool {
        guard ended.wait(timeout: .now() + timeout) == .success else { return false }
        ended.signal()
        return true
    }
}

/// A `trips-server` child process, its output collected, killed when the test is done with it.
///
/// Not for the shared task pool: every wait blocks the calling thread (use `onOwnThread`).
final class ChildServer {
    let folder: String
    let pid: pid_t
    private let process: Process
    let output: OutputCollector
    let errors: OutputCollector
    private let termination: Termination

    /// Set and signalled from Foundation's termination handler.
    private final class Termination: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let hasExited = Atomic(false)
    }

    /// Starts `trips-server --port 0 --data folder` and `arguments` (by default quiet and with no
    /// samples); does not wait.
    init(executable: String, folder: String, arguments: [String] = ["--log-level", "warning", "--no-samples"]) throws {
        self.folder = folder
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port", "0", "--data", folder] + arguments
        let standardOutput = Pipe()
        let standardError = Pipe()
        process.standardOutput = standardOutput
        process.standardError = standardError
        process.standardInput = FileHandle.nullDevice
        let termination = Termination()
        self.termination = termination
        process.terminationHandler = { _ in
            termination.hasExited.store(true, ordering: .sequentiallyConsistent)
            termination.semaphore.signal()
        }
        try process.run()
        pid = process.processIdentifier
        output = OutputCollector(standardOutput)
        errors = OutputCollector(standardError)
    }

    deinit { stop() }

    /// Waits for `trips-server listening on http://127.0.0.1:PORT` and returns the port.
    func waitUntilListening(timeout: DispatchTimeInterval = .seconds(15 * TestTimeout.scale)) throws -> Int {
        let prefix = "trips-server listening on http://127.0.0.1:"
        guard let line = output.waitForLine(startingWith: prefix, timeout: timeout) else {
            stop()
            throw TestFailure("trips-server on \(folder) did not say it was listening; stdout: \(output.text) stderr: \(errors.text)")
        }
        guard let port = Int(line.dropFirst(prefix.count)) else { throw TestFailure("no port in \(line)") }
        return port
    }

    /// Waits for the process to end; nil after `timeout`, else how it ended.
    func waitForExit(timeout: DispatchTimeInterval = .seconds(15 * TestTimeout.scale)) -> (
        reason: Process.TerminationReason, status: Int32
    )? {
        guard termination.semaphore.wait(timeout: .now() + timeout) == .success else { return nil }
        termination.semaphore.signal()
        return (process.terminationReason, process.terminationStatus)
    }

    /// Sends `signal` unless the process already ended (its pid may belong to someone else then).
    func send(_ signal: Int32) {
        guard !termination.hasExited.load(ordering: .sequentiallyConsistent) else { return }
        kill(pid, signal)
    }

    /// Kills the process if it still runs, and reaps it. Idempotent.
    func stop() {
        send(SIGKILL)
        _ = waitForExit()
    }
}

extension TestClient {
    /// Sends one request on this keep-alive connection and reads the answer.
    func exchange(_ method: String, _ target: String, json: String? = nil) throws -> TestResponse {
        try exchange(
            TestRequest(method: method, target: target, headers: json == nil ? [:] : ["Content-Type": "application/json"], body: json))
    }
}

extension TestResponse {
    /// The revision in a list tag (`"list-r12-json"`) or a trip tag (`"trip-7-v12-json"`).
    var revision: UInt64? {
        guard let tag = field("ETag") else { return nil }
        let digits: Substring
        if let range = tag.range(of: "\"list-r") {
            digits = tag[range.upperBound...].prefix { $0.isNumber }
        } else if tag.hasPrefix("\"trip-"), let range = tag.range(of: "-v") {
            digits = tag[range.upperBound...].prefix { $0.isNumber }
        } else {
            return nil
        }
        return UInt64(digits)
    }
}
