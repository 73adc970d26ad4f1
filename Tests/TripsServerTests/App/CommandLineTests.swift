import Foundation
import Glibc
import Testing
import TripsTestSupport

/// `trips-server` run as a process, for what only the whole program shows: exit codes,
/// and that a bad command line touches no data.
@Suite(.tags(.live)) struct CommandLineTests {
    /// Runs the executable to its end and returns its status and both outputs.
    private func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let executable = try tripsServerExecutable()
        return try await onOwnThread { try runToEnd(executable, arguments) }
    }

    @Test(arguments: [
        ["--bogus"], ["--port", "99999"], ["--threads"], ["--log-level", "loud"], ["--rate-limit", "10"], ["--rate-limit-burst", "5"],
    ])
    func aBadCommandLineExits2WithTheUsageAndTouchesNoData(arguments: [String]) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trips-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(["--data", folder] + arguments)
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("trips-server: "))
        #expect(result.errors.contains("Usage: trips-server [options]"))
        #expect(result.output.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func helpAndVersionExit0() async throws {
        let help = try await run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--data DIR"))
        let version = try await run(["--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("trips-server "))
    }

    private func temporaryFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("trips-cli-\(UUID().uuidString)").path
    }

    @Test func aSecondServerOnATakenPortExits1WithAddressInUseAndCreatesNoFolder() async throws {
        let executable = try tripsServerExecutable()
        let first = temporaryFolder()
        let second = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: first) }
        let result = try await onOwnThread {
            let running = try ChildServer(executable: executable, folder: first)
            defer { running.stop() }
            let port = try running.waitUntilListening()
            return try runToEnd(executable, ["--port", "\(port)", "--data", second])
        }
        #expect(result.status == 1)
        #expect(result.errors.contains("address in use"))
        #expect(!FileManager.default.fileExists(atPath: second))
    }

    /// 10.255.255.1 is no address of this machine: the bind fails before any packet is sent.
    @Test func aFailedBindLeavesNoDataFolderBehind() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await run(["--host", "10.255.255.1", "--open", "--port", "0", "--data", folder])
        #expect(result.status == 1)
        #expect(result.errors.hasPrefix("trips-server: cannot listen on 10.255.255.1:0"))
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func exposedAndOpenRefusesToStartAndABadTokenFileNamesItsLine() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let exposed = try await run(["--host", "0.0.0.0", "--port", "0", "--data", folder])
        #expect(exposed.status == 2)
        #expect(exposed.errors.contains("pass --tokens FILE"))
        #expect(!FileManager.default.fileExists(atPath: folder))
        let tokens = FileManager.default.temporaryDirectory.appendingPathComponent("trips-tokens-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: tokens) }
        try "alice 0123456789abcdef0123\nbob\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let malformed = try await run(["--host", "0.0.0.0", "--tokens", tokens, "--port", "0", "--data", folder])
        #expect(malformed.status == 2)
        #expect(malformed.errors.contains("line 2"))
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func aShortTokenExits2NamingItsLineNeverATokenAndAFileOthersMayWriteIsWarnedOf() async throws {
        let executable = try tripsServerExecutable()
        let folder = temporaryFolder()
        let tokens = temporaryFolder() + "-tokens"
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: tokens)
        }
        try "# the team\nalice 0123456789abcdef0123\nbob short-secret\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        let short = try await run(["--tokens", tokens, "--port", "0", "--data", folder])
        #expect(short.status == 2)
        #expect(short.errors.contains("\(tokens) line 3: the token of bob is shorter than 16 characters"))
        #expect(!short.errors.contains("short-secret") && !short.errors.contains("0123456789abcdef0123"))
        #expect(!FileManager.default.fileExists(atPath: folder))

        try "alice 0123456789abcdef0123\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        chmod(tokens, 0o622)
        let (status, errors) = try await onOwnThread { () throws -> (Int32?, String) in
            let server = try ChildServer(executable: executable, folder: folder, arguments: ["--tokens", tokens, "--log-level", "warning"])
            defer { server.stop() }
            _ = try server.waitUntilListening()
            server.send(SIGTERM)
            let exit = server.waitForExit()
            _ = server.errors.waitForEnd(timeout: .seconds(5))
            return (exit?.status, server.errors.text)
        }
        #expect(status == 0)
        #expect(errors.contains("warning: the token file \(tokens) is writable by other users; chmod 600 it"))
        #expect(!errors.contains("0123456789abcdef0123"))
    }

    @Test func lifecycleLinesGoToStandardOutputAndANewFolderIsNotAlsoRecovered() async throws {
        let executable = try tripsServerExecutable()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for expected in ["created the data folder \(folder) with 6 trips", "6 trips recovered from \(folder)"] {
            let (status, output, errors) = try await onOwnThread { () throws -> (Int32?, String, String) in
                let server = try ChildServer(executable: executable, folder: folder, arguments: [])
                defer { server.stop() }
                _ = try server.waitUntilListening()
                server.send(SIGTERM)
                let exit = server.waitForExit()
                _ = server.output.waitForEnd(timeout: .seconds(5 * TestTimeout.scale))
                return (exit?.status, server.output.text, server.errors.text)
            }
            #expect(status == 0)
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.first == "trips-server: \(expected)")
            #expect(lines.filter { $0.contains("created") || $0.contains("recovered") }.count == 1)
            #expect(lines.last == "trips-server stopped")
            #expect(errors.isEmpty)
        }
    }

    /// `trips-server | head -1`: once the reader is gone every line meets EPIPE, and the
    /// server must go on serving and still exit 0 on SIGTERM.
    @Test func aClosedStandardOutputIsSurvived() async throws {
        let executable = try tripsServerExecutable()
        let (status, answered) = try await onOwnThread { () throws -> (Int32, Int) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--in-memory", "--port", "0"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            var text = ""
            while !text.contains("\n") {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { throw TestFailure("no listening line: \(text)") }
                text += String(decoding: chunk, as: UTF8.self)
            }
            try output.fileHandleForReading.close()  // what `head -1` does after its line
            let prefix = "trips-server listening on http://127.0.0.1:"
            guard text.hasPrefix(prefix), let port = Int(text.dropFirst(prefix.count).prefix { $0.isNumber }) else {
                throw TestFailure("unexpected first line: \(text)")
            }
            // Each answer writes an access log line into the broken pipe.
            let client = try TestClient(port: port)
            var answered = 0
            for _ in 0..<3 where try client.exchange("GET", "/trips/2").status == 200 { answered += 1 }
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            return (process.terminationReason == .exit ? process.terminationStatus : -1, answered)
        }
        #expect(answered == 3)
        #expect(status == 0)
    }
}

/// Runs an executable with `arguments` (and `environment`, else this process's) to its end
/// (for command lines that end at once: the outputs fit the pipes) and returns its status and
/// both outputs. Blocks the calling thread (use `onOwnThread`).
func runToEnd(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (
    status: Int32, output: String, errors: String
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let read = { (pipe: Pipe) in String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
    return (process.terminationStatus, read(output), read(errors))
}
