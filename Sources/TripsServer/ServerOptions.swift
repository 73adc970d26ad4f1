import Foundation
import TripsHTTP
import TripsPlatform
import TripsPostgres
import TripsStore

/// The command line and environment, parsed once into a value: flags win over environment
/// variables, which win over defaults. Every flag has a variable, `TRIPS_` and its name in
/// capitals with `-` as `_` (`--max-body` is `TRIPS_MAX_BODY`); a switch's variable is on
/// when it is `1` or `true`.
struct ServerOptions: Sendable, Equatable {
    var http = HTTPServerConfiguration.defaults
    /// The data folder; nil keeps everything in memory (`--in-memory`).
    var dataDirectory: String? = "./trips-data"
    /// `--data` or `--in-memory` is on the command line: then no database URL may be given.
    /// (A URL in the environment wins over `TRIPS_DATA`, which the container image sets.)
    var isDataDirectoryChosen = false
    /// The PostgreSQL database that keeps the trips instead (`--database`, `TRIPS_DATABASE_URL`,
    /// then `DATABASE_URL`): `postgres://user:password@host:port/dbname`.
    var databaseURL: String?
    /// The database URL came with a password on the command line, where `ps` shows it to
    /// every user of the machine: the server warns (`TRIPS_DATABASE_URL` keeps it out of sight).
    var isPasswordOnCommandLine = false
    var seedSamples = true
    var logLevel: LogLevel = .info
    /// How many of the latest changes `/trips/changes` can replay to a client that resumes.
    var historyCapacity = StorageConfiguration().historyCapacity
    /// Compact once the journals hold exactly this many records; nil: `StorageConfiguration`'s
    /// default threshold (in bytes or records, and as much as the snapshot holds).
    var compactionRecords: Int?
    /// The most bytes of idempotency keys and their answers kept (`--idempotency-bytes`).
    var idempotencyBytes = IdempotencyLedger.defaultByteLimit
    /// Most change streams open at once; past it, 503.
    var maxSubscribers = ChangeFeed.defaultMaxSubscribers
    /// The largest photo taken, in bytes; past it, 413 from `Content-Length` alone.
    var maxPhotoBytes = TripsAPI.defaultMaxPhotoBytes
    /// The file of `NAME TOKEN` lines; nil: no tokens.
    var tokensFile: String?
    /// Run without tokens on an address other than loopback, on purpose.
    var isOpen = false
    /// `--rate-limit` and its companions: off unless asked for.
    var rateLimit = RateLimitOptions()
    /// How long a browser stays signed in after `POST /session`, in hours.
    var sessionHours = Int(BrowserSessions.defaultLifetime.components.seconds / 3600)

    /// When the store compacts, and how much history and how many bytes of keys it keeps.
    var storageConfiguration: StorageConfiguration {
        guard let compactionRecords else {
            return StorageConfiguration(historyCapacity: historyCapacity, idempotencyBytes: idempotencyBytes)
        }
        return StorageConfiguration(
            compactionBytes: .max, compactionRecords: compactionRecords, growsWithSnapshot: false, historyCapacity: historyCapacity,
            idempotencyBytes: idempotencyBytes)
    }
    /// Reads need a token too (all but `/livez`, `/readyz` and `/health`).
    var isPrivate = false
    /// Changes of trips or of the list need `If-Match` (428 without): no blind writes.
    var requiresIfMatch = false
    /// Origins a browser may call the API from (`*` for any); empty: no CORS.
    var corsOrigins: [String] = []
    /// Names the server answers besides loopback ones (`Host`); empty: loopback names only,
    /// or any name when it listens beyond loopback.
    var allowedHosts: [String] = []
    /// What the process was asked to do.
    var action: Action = .serve

    enum Action: Sendable, Equatable {
        case serve, help, version
        /// Ask a running server's `/readyz` and exit 0 when it answers 200 (for container health checks).
        case checkHealth
    }

    enum LogLevel: String, Sendable, CaseIterable, Comparable {
        case debug, info, warning, error

        private var severity: Int {
            switch self {
            case .debug: 0
            case .info: 1
            case .warning: 2
            case .error: 3
            }
        }

        static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.severity < rhs.severity }
    }

    /// A flag or value the server does not understand; `main` prints it with the usage and exits 2.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    static let version = "0.1.0"

    /// Every option at its default: no flag, no variable.
    init() {}

    /// What `--help` says each option is without a flag, read from where the default is set.
    private static let defaults = ServerOptions()

    /// One option: its flag, what its value looks like (nil for a switch), what it means,
    /// and how it sets the options (`source` is the flag, or the variable it came from). Its
    /// environment variable comes from its name unless `environment` names another.
    private struct Flag: Sendable {
        let name: String
        let value: String?
        let help: String
        var environment: String? = nil
        let apply: @Sendable (inout ServerOptions, _ value: String, _ source: String) throws(UsageError) -> Void

        var environmentName: String {
            environment ?? "TRIPS_" + name.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
        }
    }

    /// Every option, in the order `--help` lists them.
    private static let flags: [Flag] = [
        Flag(name: "--host", value: "ADDRESS", help: "address to listen on (default \(defaults.http.host))") {
            (options, value, _) throws(UsageError) in
            options.http.host = value
        },
        Flag(name: "--port", value: "N", help: "TCP port, 0 picks a free one (default \(defaults.http.port); also PORT)") {
            (options, value, source) throws(UsageError) in
            options.http.port = try number(value, source, 0...65_535)
        },
        Flag(name: "--data", value: "DIR", help: "data folder (default \(defaults.dataDirectory ?? "none"))") {
            (options, value, source) throws(UsageError) in
            options.dataDirectory = value
            if source.hasPrefix("--") { options.isDataDirectoryChosen = true }
        },
        Flag(name: "--in-memory", value: nil, help: "keep trips in memory only: nothing is saved") {
            (options, _, source) throws(UsageError) in
            options.dataDirectory = nil
            if source.hasPrefix("--") { options.isDataDirectoryChosen = true }
        },
        Flag(
            name: "--database", value: "URL",
            help:
                "keep trips in PostgreSQL instead, shared by several servers: postgres://user:password@host:port/dbname "
                + "(better in TRIPS_DATABASE_URL, then DATABASE_URL, where ps does not show the password)",
            environment: "TRIPS_DATABASE_URL"
        ) { (options, value, source) throws(UsageError) in
            let url: DatabaseURL
            do {
                url = try DatabaseURL(value)
            } catch {
                throw UsageError(description: "\(source): \(error)")
            }
            options.databaseURL = value
            options.isPasswordOnCommandLine = source.hasPrefix("--") && url.password != nil
        },
        Flag(name: "--no-samples", value: nil, help: "start a new data folder or database with no sample trips") {
            (options, _, _) throws(UsageError) in
            options.seedSamples = false
        },
        Flag(name: "--threads", value: "N", help: "event loop threads (default: one per core)") {
            (options, value, source) throws(UsageError) in
            options.http.eventLoopCount = try number(value, source, 1...1024)
        },
        Flag(
            name: "--io", value: "ENGINE", help: "epoll, or uring: io_uring, epoll where refused (default \(defaults.http.engine.rawValue))"
        ) {
            (options, value, source) throws(UsageError) in
            options.http.engine = try choice(value, source)
        },
        Flag(
            name: "--tokens", value: "FILE", help: "NAME TOKEN lines: changes need Authorization: Bearer TOKEN (also TRIPS_TOKENS_FILE)",
            environment: "TRIPS_TOKENS_FILE"
        ) {
            (options, value, _) throws(UsageError) in
            options.tokensFile = value
        },
        Flag(name: "--open", value: nil, help: "serve an address other than loopback without tokens, on purpose") {
            (options, _, _) throws(UsageError) in
            options.isOpen = true
        },
        Flag(name: "--private", value: nil, help: "reads need a token too (not /livez, /readyz, /health)") {
            (options, _, _) throws(UsageError) in
            options.isPrivate = true
        },
        Flag(name: "--require-if-match", value: nil, help: "changes of trips need If-Match (428 Precondition Required without)") {
            (options, _, _) throws(UsageError) in
            options.requiresIfMatch = true
        },
        Flag(
            name: "--session-hours", value: "N",
            help: "how long a browser signed in with a token stays signed in (default \(defaults.sessionHours))"
        ) { (options, value, source) throws(UsageError) in
            options.sessionHours = try number(value, source, 1...8_760)
        },
        Flag(
            name: "--cors-origin", value: "ORIGIN",
            help: "a browser origin allowed to call the API, * for any; repeatable (TRIPS_CORS_ORIGINS: comma-separated)",
            environment: "TRIPS_CORS_ORIGINS"
        ) {
            (options, value, source) throws(UsageError) in
            let origins = repeated(value, source)
            guard origins.allSatisfy({ !$0.isEmpty }) else {
                throw UsageError(description: "\(source) needs an origin like https://example.com, or *")
            }
            options.corsOrigins += origins
        },
        Flag(
            name: "--allowed-host", value: "NAME",
            help:
                "a Host name answered besides localhost and loopback addresses (others get 421); repeatable (TRIPS_ALLOWED_HOSTS: comma-separated)",
            environment: "TRIPS_ALLOWED_HOSTS"
        ) {
            (options, value, source) throws(UsageError) in
            for name in repeated(value, source) {
                guard let spelled = HostAllowList.spelling(of: name) else {
                    throw UsageError(
                        description: "\(source) needs a host name or address without a port, like trips.example.com, not \"\(name)\"")
                }
                options.allowedHosts.append(spelled)
            }
        },
        Flag(name: "--max-body", value: "BYTES", help: "largest request body (default \(defaults.http.limits.maxBodyLength))") {
            (options, value, source) throws(UsageError) in
            options.http.limits.maxBodyLength = try number(value, source, 0...Int(Int32.max))
        },
        Flag(
            name: "--max-header", value: "BYTES", help: "largest header section (default \(defaults.http.limits.maxHeaderSectionLength))"
        ) {
            (options, value, source) throws(UsageError) in
            options.http.limits.maxHeaderSectionLength = try number(value, source, 64...Int(Int32.max))
        },
        Flag(name: "--max-fields", value: "N", help: "most header fields (default \(defaults.http.limits.maxHeaderFieldCount))") {
            (options, value, source) throws(UsageError) in
            options.http.limits.maxHeaderFieldCount = try number(value, source, 1...100_000)
        },
        Flag(
            name: "--max-request-line", value: "BYTES", help: "longest request line (default \(defaults.http.limits.maxRequestLineLength))"
        ) {
            (options, value, source) throws(UsageError) in
            options.http.limits.maxRequestLineLength = try number(value, source, 16...Int(Int32.max))
        },
        Flag(
            name: "--header-timeout", value: "SEC",
            help: "time to send a header section (default \(seconds(defaults.http.timeouts.header)))"
        ) {
            (options, value, source) throws(UsageError) in
            options.http.timeouts.header = .seconds(try number(value, source, 1...86_400))
        },
        Flag(
            name: "--body-timeout", value: "SEC", help: "longest pause inside a body (default \(seconds(defaults.http.timeouts.bodyStall)))"
        ) {
            (options, value, source) throws(UsageError) in
            options.http.timeouts.bodyStall = .seconds(try number(value, source, 1...86_400))
        },
        Flag(name: "--idle-timeout", value: "SEC", help: "keep-alive idle time (default \(seconds(defaults.http.timeouts.idle)))") {
            (options, value, source) throws(UsageError) in
            options.http.timeouts.idle = .seconds(try number(value, source, 1...86_400))
        },
        Flag(
            name: "--write-timeout", value: "SEC",
            help: "longest wait for a client to take any of a response (default \(seconds(defaults.http.timeouts.writeStall)))"
        ) {
            (options, value, source) throws(UsageError) in
            options.http.timeouts.writeStall = .seconds(try number(value, source, 1...86_400))
        },
        Flag(
            name: "--heartbeat", value: "SEC",
            help: "comment line on an idle change stream (default \(seconds(defaults.http.timeouts.heartbeat)))"
        ) {
            (options, value, source) throws(UsageError) in
            options.http.timeouts.heartbeat = .seconds(try number(value, source, 1...3_600))
        },
        Flag(name: "--history", value: "N", help: "changes kept for clients that resume the feed (default \(defaults.historyCapacity))") {
            (options, value, source) throws(UsageError) in
            options.historyCapacity = try number(value, source, 1...10_000_000)
        },
        Flag(
            name: "--idempotency-bytes", value: "N",
            help:
                "bytes of idempotency keys and their answers kept, oldest forgotten first "
                + "(default \(defaults.idempotencyBytes), \(defaults.idempotencyBytes >> 20) MiB)"
        ) { (options, value, source) throws(UsageError) in
            options.idempotencyBytes = try number(value, source, 0...(1 << 40))
        },
        Flag(
            name: "--compact-after", value: "N",
            help:
                "compact after N journal records exactly (default: \(defaults.storageConfiguration.compactionRecords), "
                + "or \(defaults.storageConfiguration.compactionBytes >> 20) MiB, and as much as the snapshot holds)"
        ) { (options, value, source) throws(UsageError) in
            options.compactionRecords = try number(value, source, 1...100_000_000)
        },
        Flag(name: "--max-photo-bytes", value: "BYTES", help: "largest trip photo (default \(defaults.maxPhotoBytes))") {
            (options, value, source) throws(UsageError) in
            options.maxPhotoBytes = try number(value, source, 1...Int(Int32.max))
        },
        Flag(name: "--max-subscribers", value: "N", help: "most change streams open at once (default \(defaults.maxSubscribers))") {
            (options, value, source) throws(UsageError) in
            options.maxSubscribers = try number(value, source, 0...1_000_000)
        },
        Flag(
            name: "--max-connections", value: "N",
            help: "most connections open at once; past it, closed at once (default \(defaults.http.limits.maxConnections))"
        ) {
            (options, value, source) throws(UsageError) in
            options.http.limits.maxConnections = try number(value, source, 1...10_000_000)
        },
        Flag(
            name: "--rate-limit", value: "N/s",
            help: "changes one client (its token, or its address without one) may make per second, on average (default: no limit)"
        ) { (options, value, source) throws(UsageError) in
            guard let perSecond = RateLimitOptions.perSecond(value) else {
                throw UsageError(description: "\(source) must be requests per second, from 1/s to 1000000/s like 10/s, not \"\(value)\"")
            }
            options.rateLimit.perSecond = perSecond
        },
        Flag(name: "--rate-limit-burst", value: "N", help: "requests one client may make at once after a pause (default: twice the rate)") {
            (options, value, source) throws(UsageError) in
            options.rateLimit.burst = try number(value, source, 1...10_000_000)
        },
        Flag(name: "--rate-limit-reads", value: nil, help: "limit reads too, at the same rate, in buckets of their own") {
            (options, _, _) throws(UsageError) in
            options.rateLimit.limitsReads = true
        },
        Flag(
            name: "--trusted-proxy", value: "ADDRESS",
            help: "a proxy whose X-Real-IP names the client, for rate limits; repeatable (TRIPS_TRUSTED_PROXIES: comma-separated)",
            environment: "TRIPS_TRUSTED_PROXIES"
        ) { (options, value, source) throws(UsageError) in
            for text in repeated(value, source) {
                guard let address = IPAddress(text) else {
                    throw UsageError(description: "\(source) needs a numeric IP address like 172.28.0.10, not \"\(text)\"")
                }
                options.rateLimit.trustedProxies.append(address)
            }
        },
        Flag(name: "--log-level", value: "LEVEL", help: "debug, info, warning or error (default \(defaults.logLevel.rawValue))") {
            (options, value, _) throws(UsageError) in
            options.logLevel = try choice(value, "log level")
        },
        Flag(
            name: "--log-format", value: "FORMAT", help: "logfmt or json, for every log line (default \(defaults.http.logFormat.rawValue))"
        ) {
            (options, value, _) throws(UsageError) in
            options.http.logFormat = try choice(value, "log format")
        },
    ]

    /// Flags that do something other than set an option, and have no variable.
    private static let actions: [(name: String, help: String, action: Action)] = [
        ("--check-health", "ask the server at --host/--port for /readyz; exit 0 if ready", .checkHealth),
        ("--version", "print the version", .version),
        ("--help", "print this help", .help),
    ]

    static var usage: String {
        var lines = [
            "Usage: trips-server [options]", "",
            "Serves the Trips HTTP API. Each flag has an environment variable, TRIPS_ and its name in",
            "capitals (--max-body: TRIPS_MAX_BODY; switches take 1 or true); flags win over them.",
            "A value may also be attached: --port=8080.", "",
        ]
        for flag in flags {
            let left = "  \(flag.name)" + (flag.value.map { " \($0)" } ?? "")
            lines.append(left.padding(toLength: max(26, left.count + 2), withPad: " ", startingAt: 0) + flag.help)
        }
        for action in actions {
            lines.append("  \(action.name)".padding(toLength: 26, withPad: " ", startingAt: 0) + action.help)
        }
        return lines.joined(separator: "\n")
    }

    /// Parses `arguments` (without the program name) over `environment`.
    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        if let port = environment["PORT"] { try Self.flag("--port").apply(&self, port, "PORT") }
        if let url = environment["DATABASE_URL"] { try Self.flag("--database").apply(&self, url, "DATABASE_URL") }
        for flag in Self.flags {
            let variable = flag.environmentName
            guard let value = environment[variable] else { continue }
            if flag.value == nil {
                guard value == "1" || value.lowercased() == "true" else { continue }
            }
            try flag.apply(&self, value, variable)
        }

        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            // `--port=8080` is `--port 8080`, for every flag that takes a value.
            var name = argument
            var attached: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                attached = String(argument[argument.index(after: equals)...])
            }
            if let action = Self.actions.first(where: { $0.name == name }) ?? (name == "-h" ? Self.actions.last : nil) {
                guard attached == nil else { throw UsageError(description: "\(name) takes no value") }
                self.action = action.action
                continue
            }
            guard let flag = Self.flags.first(where: { $0.name == name }) else {
                throw UsageError(description: "unknown option \(name)")
            }
            guard flag.value != nil else {
                guard attached == nil else { throw UsageError(description: "\(name) takes no value") }
                try flag.apply(&self, "", name)
                continue
            }
            guard let value = attached ?? remaining.popFirst() else { throw UsageError(description: "\(name) needs a value") }
            try flag.apply(&self, value, name)
        }
        if rateLimit.perSecond == nil && (rateLimit.burst != nil || rateLimit.limitsReads) {
            throw UsageError(description: "--rate-limit-burst and --rate-limit-reads need --rate-limit N/s")
        }
        if databaseURL != nil && isDataDirectoryChosen {
            throw UsageError(description: "--database and --data (or --in-memory) each choose where trips are kept: pass one")
        }
    }

    private static func flag(_ name: String) -> Flag {
        flags.first { $0.name == name }!
    }

    /// The values of a repeatable flag: one from the flag, a comma-separated list from its variable.
    private static func repeated(_ value: String, _ source: String) -> [String] {
        source.hasPrefix("--") ? [value] : value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// A default duration as `--help` prints it: whole seconds.
    private static func seconds(_ duration: Duration) -> Int64 {
        duration.components.seconds
    }

    /// One of a setting's named values; otherwise "NAME must be a, b or c, not \"TEXT\"".
    private static func choice<Value: RawRepresentable<String> & CaseIterable>(
        _ text: String, _ name: String
    ) throws(UsageError) -> Value {
        guard let value = Value(rawValue: text) else {
            let names = Value.allCases.map(\.rawValue)
            let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
            throw UsageError(description: "\(name) must be \(list), not \"\(text)\"")
        }
        return value
    }

    private static func number(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }
}
