import Glibc

/// The command line and environment, parsed once into a value: flags win over environment
/// variables, which win over defaults.
struct ServerOptions: Sendable, Equatable {
    var http = HTTPServerConfiguration()
    /// The data folder; nil keeps everything in memory (`--in-memory`).
    var dataDirectory: String? = "./trips-data"
    var seedSamples = true
    var logLevel: LogLevel = .info
    /// How many of the latest changes `/trips/changes` can replay to a client that resumes.
    var historyCapacity = 10_000
    /// Most change streams open at once; past it, 503.
    var maxSubscribers = 10_000
    /// What the process was asked to do.
    var action: Action = .serve

    enum Action: Sendable, Equatable {
        case serve, help, version
        /// Ask a running server's `/health` and exit 0 when it answers 200 (for container health checks).
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

    static let usage = """
        Usage: trips-server [options]

        Serves the Trips HTTP API. Flags override environment variables (in brackets).
        A value may also be attached: --port=8080.

          --host ADDRESS          address to listen on (default 127.0.0.1) [TRIPS_HOST]
          --port N                TCP port, 0 picks a free one (default 8080) [TRIPS_PORT, PORT]
          --data DIR              data folder (default ./trips-data) [TRIPS_DATA]
          --in-memory             keep trips in memory only: nothing is saved
          --no-samples            start an empty data folder with no sample trips [TRIPS_NO_SAMPLES=1]
          --threads N             event loop threads (default: one per core) [TRIPS_THREADS]
          --max-body BYTES        largest request body (default 1048576)
          --max-header BYTES      largest header section (default 16384)
          --max-fields N          most header fields (default 100)
          --max-request-line BYTES  longest request line (default 8192)
          --header-timeout SEC    time to send a header section (default 10)
          --body-timeout SEC      longest pause inside a body (default 30)
          --idle-timeout SEC      keep-alive idle time (default 60)
          --write-timeout SEC     longest wait for a client to take any of a response (default 30)
          --heartbeat SEC         comment line on an idle change stream (default 15) [TRIPS_HEARTBEAT]
          --history N             changes kept for clients that resume the feed (default 10000) [TRIPS_HISTORY]
          --max-subscribers N     most change streams open at once (default 10000) [TRIPS_MAX_SUBSCRIBERS]
          --log-level LEVEL       debug, info, warning or error (default info) [TRIPS_LOG_LEVEL]
          --check-health          ask the server at --host/--port for /health; exit 0 if healthy
          --version               print the version
          --help                  print this help
        """

    /// Parses `arguments` (without the program name) over `environment`.
    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        if let host = environment["TRIPS_HOST"] { http.host = host }
        if let port = environment["TRIPS_PORT"] ?? environment["PORT"] { http.port = try Self.port(port) }
        if let data = environment["TRIPS_DATA"] { dataDirectory = data }
        if environment["TRIPS_NO_SAMPLES"] == "1" { seedSamples = false }
        if let threads = environment["TRIPS_THREADS"] { http.eventLoopCount = try Self.number(threads, "TRIPS_THREADS", 1...1024) }
        if let level = environment["TRIPS_LOG_LEVEL"] { logLevel = try Self.level(level) }
        if let seconds = environment["TRIPS_HEARTBEAT"] {
            http.timeouts.heartbeat = .seconds(try Self.number(seconds, "TRIPS_HEARTBEAT", 1...3_600))
        }
        if let count = environment["TRIPS_HISTORY"] { historyCapacity = try Self.number(count, "TRIPS_HISTORY", 1...10_000_000) }
        if let count = environment["TRIPS_MAX_SUBSCRIBERS"] {
            maxSubscribers = try Self.number(count, "TRIPS_MAX_SUBSCRIBERS", 0...1_000_000)
        }

        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            // `--port=8080` is `--port 8080`, for every flag that takes a value.
            var flag = argument
            var attached: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                attached = String(argument[argument.index(after: equals)...])
            }
            var valueTaken = false
            func value() throws(UsageError) -> String {
                valueTaken = true
                if let attached { return attached }
                guard let value = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
                return value
            }
            switch flag {
            case "--host": http.host = try value()
            case "--port": http.port = try Self.port(try value())
            case "--data": dataDirectory = try value()
            case "--in-memory": dataDirectory = nil
            case "--no-samples": seedSamples = false
            case "--threads": http.eventLoopCount = try Self.number(try value(), flag, 1...1024)
            case "--max-body": http.limits.maxBodyLength = try Self.number(try value(), flag, 0...Int(Int32.max))
            case "--max-header": http.limits.maxHeaderSectionLength = try Self.number(try value(), flag, 64...Int(Int32.max))
            case "--max-fields": http.limits.maxHeaderFieldCount = try Self.number(try value(), flag, 1...100_000)
            case "--max-request-line": http.limits.maxRequestLineLength = try Self.number(try value(), flag, 16...Int(Int32.max))
            case "--header-timeout": http.timeouts.header = .seconds(try Self.number(try value(), flag, 1...86_400))
            case "--body-timeout": http.timeouts.bodyStall = .seconds(try Self.number(try value(), flag, 1...86_400))
            case "--idle-timeout": http.timeouts.idle = .seconds(try Self.number(try value(), flag, 1...86_400))
            case "--write-timeout": http.timeouts.writeStall = .seconds(try Self.number(try value(), flag, 1...86_400))
            case "--log-level": logLevel = try Self.level(try value())
            case "--heartbeat": http.timeouts.heartbeat = .seconds(try Self.number(try value(), flag, 1...3_600))
            case "--history": historyCapacity = try Self.number(try value(), flag, 1...10_000_000)
            case "--max-subscribers": maxSubscribers = try Self.number(try value(), flag, 0...1_000_000)
            case "--check-health": action = .checkHealth
            case "--version": action = .version
            case "--help", "-h": action = .help
            default: throw UsageError(description: "unknown option \(flag)")
            }
            if attached != nil && !valueTaken { throw UsageError(description: "\(flag) takes no value") }
        }
    }

    private static func number(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }

    private static func port(_ text: String) throws(UsageError) -> Int {
        try number(text, "port", 0...65_535)
    }

    private static func level(_ text: String) throws(UsageError) -> LogLevel {
        guard let level = LogLevel(rawValue: text) else {
            throw UsageError(description: "log level must be debug, info, warning or error, not \"\(text)\"")
        }
        return level
    }
}
