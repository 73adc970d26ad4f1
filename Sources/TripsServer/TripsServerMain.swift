import Foundation
import Glibc
import TripsDomain
import TripsHTTP
import TripsPlatform
import TripsPostgres
import TripsStore

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
            Console.error("trips-server: \(error)\n\n\(ServerOptions.usage)")
            exit(2)
        }
        switch options.action {
        case .help:
            Console.info(ServerOptions.usage)
        case .version:
            Console.info("trips-server \(ServerOptions.version)")
        case .checkHealth:
            exit(HealthCheck.run(host: options.http.host, port: options.http.port) ? 0 : 1)
        case .serve:
            serve(options)
        }
    }

    private static func serve(_ options: ServerOptions) {
        Console.use(options.http.logFormat)
        let access = accessPolicy(options)
        var configuration = options.http
        configuration.logsRequests = options.logLevel <= .info
        let address = "\(bracketed(configuration.host)):\(configuration.port)"
        // Bind before the data folder is created or opened: a taken or foreign address
        // must leave nothing behind.
        let listener: Listener
        do {
            listener = try Listener(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        } catch {
            let reason = error.errno == EADDRINUSE ? "address in use (another server listens there)" : "\(error)"
            Console.error("trips-server: cannot listen on \(address): \(reason)")
            exit(1)
        }
        let store: any TripStoring
        do {
            if let url = options.databaseURL {
                if options.isPasswordOnCommandLine {
                    Console.warning(
                        "--database puts the database password where ps shows it to every user; "
                            + "pass the URL in TRIPS_DATABASE_URL instead")
                }
                guard let connection = PostgresConnectionConfiguration(url: try DatabaseURL(url)) else {
                    Console.error("trips-server: --database names no user, and this process's user has no name")
                    exit(2)
                }
                Console.info("trips-server: keeping trips in PostgreSQL at \(connection.address) (database \(connection.database))")
                store = try PostgresTripStore(
                    connection: connection, seedSamples: options.seedSamples, configuration: options.storageConfiguration)
            } else if let directory = options.dataDirectory {
                store = try TripStore(
                    directory: directory, seedSamples: options.seedSamples, configuration: options.storageConfiguration)
            } else {
                store = MemoryTripStore(seedSamples: options.seedSamples, configuration: options.storageConfiguration)
            }
        } catch {
            Console.error("trips-server: \(error)")
            exit((error as? StorageError)?.isUnsafeFolder == true ? 2 : 1)
        }
        let api = TripsAPI(
            store: store, access: access, cors: CORSPolicy(origins: options.corsOrigins),
            hosts: HostAllowList(listeningOn: configuration.host, allowedHosts: options.allowedHosts),
            maxSubscribers: options.maxSubscribers, maxPhotoBytes: options.maxPhotoBytes,
            requiresIfMatch: options.requiresIfMatch, rateLimit: options.rateLimit)
        let server = HTTPServer(configuration: configuration, handler: api, streams: api.feed.hub, metrics: api.serverMetrics)
        TripsListPage.prepare()
        do {
            try server.start(on: listener)
        } catch {
            Console.error("trips-server: cannot start the event loops: \(error)")
            store.close()
            exit(1)
        }
        if let refusal = server.uringRefusal {
            Console.warning("trips-server: io_uring refused (\(refusal)): the event loops use epoll")
        }
        server.shutdownOnSignals { signal in
            Console.info("trips-server shutting down (\(signal == SIGTERM ? "SIGTERM" : "SIGINT")): finishing requests in flight")
            api.feed.endLongPolls()
        }
        Console.info("trips-server listening on http://\(bracketed(configuration.host)):\(server.port)")
        if options.dataDirectory == nil && options.databaseURL == nil {
            let count = store.list.trips.count
            Console.info("trips-server: \(count) trip\(count == 1 ? "" : "s") in memory, not saved")
        }
        server.waitUntilStopped()
        store.close()
        Console.info("trips-server stopped")
    }

    /// The token file read, or exit 2: for a file that cannot be used, and for an address other
    /// than loopback with no tokens (unless `--open` says that is meant), as CouchDB refuses
    /// to run exposed without an admin.
    private static func accessPolicy(_ options: ServerOptions) -> AccessPolicy? {
        guard let path = options.tokensFile else {
            if !options.isOpen && !HostAllowList.isLoopback(options.http.host) {
                Console.error(
                    "trips-server: refusing to serve \(options.http.host) to the network with no authentication: "
                        + "pass --tokens FILE (NAME TOKEN lines), or --open to run without it on purpose")
                exit(2)
            }
            if options.isPrivate {
                Console.error("trips-server: --private needs --tokens FILE")
                exit(2)
            }
            return nil
        }
        let tokens: AccessTokens
        do {
            tokens = try AccessTokens(contentsOf: path)
        } catch {
            Console.error("trips-server: \(error)")
            exit(2)
        }
        if let exposure = AccessTokens.exposure(of: path) {
            Console.warning("the token file \(path) is \(exposure) by other users; chmod 600 it")
        }
        do {
            let sessions = try BrowserSessions(lifetime: .seconds(options.sessionHours * 3600), clock: SystemClock())
            return AccessPolicy(tokens: tokens, isPrivate: options.isPrivate, sessions: sessions)
        } catch {
            Console.error("trips-server: no random bytes to sign browser sessions with: \(error)")
            exit(1)
        }
    }

    /// An IPv6 address in brackets, as URLs write it.
    private static func bracketed(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}
