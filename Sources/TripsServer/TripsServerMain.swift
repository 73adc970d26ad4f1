import Foundation
import Glibc
import TripsDomain

/// The `trips-server` entry point: parse options, open the data folder, serve until
/// SIGTERM or SIGINT, then finish what is in flight and exit 0.
///
/// It lives in the library, called from the thin `TripsServerApp` executable, so that the
/// fuzz targets can link `TripsServer` (an executable target cannot be a dependency).
package enum TripsServerMain {
    package static func main() {
        let options: ServerOptions
        do {
            options = try ServerOptions(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("trips-server: \(error)\n\n\(ServerOptions.usage)\n".utf8))
            exit(2)
        }
        switch options.action {
        case .help:
            say(ServerOptions.usage)
        case .version:
            say("trips-server \(ServerOptions.version)")
        case .checkHealth:
            exit(HealthCheck.run(host: options.http.host, port: options.http.port) ? 0 : 1)
        case .serve:
            serve(options)
        }
    }

    private static func serve(_ options: ServerOptions) {
        let store: TripStore
        do {
            store = try TripStore(directory: options.dataDirectory, seedSamples: options.seedSamples)
        } catch {
            FileHandle.standardError.write(Data("trips-server: \(error)\n".utf8))
            exit(1)
        }
        var configuration = options.http
        configuration.logsRequests = options.logLevel <= .info
        let server = HTTPServer(configuration: configuration, handler: TripsAPI(store: store))
        do {
            try server.start()
        } catch {
            FileHandle.standardError.write(Data("trips-server: cannot listen on \(options.http.host):\(options.http.port): \(error)\n".utf8))
            exit(1)
        }
        server.shutdownOnSignals { signal in
            say("trips-server shutting down (\(signal == SIGTERM ? "SIGTERM" : "SIGINT")): finishing requests in flight")
        }
        let host = options.http.host.contains(":") ? "[\(options.http.host)]" : options.http.host
        say("trips-server listening on http://\(host):\(server.port)")
        let count = store.list.trips.count
        say("trips-server: \(count) trip\(count == 1 ? "" : "s") \(options.dataDirectory.map { "recovered from \($0)" } ?? "in memory, not saved")")
        server.waitUntilStopped()
        store.close()
        say("trips-server stopped")
    }

    /// Writes a line to standard output at once, unbuffered, so supervisors and tests see it.
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
