import Foundation
import Testing

/// `trips-server` run as a process, for what only the whole program shows: exit codes,
/// and that a bad command line touches no data.
@Suite struct CommandLineTests {
    /// Runs the executable to its end and returns its status and both outputs.
    private func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let executable = try tripsServerExecutable()
        return try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()  // a bad command line ends at once; the outputs fit the pipes
            let read = { (pipe: Pipe) in String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
            return (process.terminationStatus, read(output), read(errors))
        }
    }

    @Test(arguments: [["--bogus"], ["--port", "99999"], ["--threads"], ["--log-level", "loud"]])
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
}
