import Testing
import TripsPlatform

@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

@Suite struct ServerOptionsTests {
    @Test func defaultsServeSamplesFromTripsDataOnLocalhost8080() throws {
        let options = try ServerOptions(arguments: [], environment: [:])
        #expect(options.http.host == "127.0.0.1")
        #expect(options.http.port == 8080)
        #expect(options.dataDirectory == "./trips-data")
        #expect(options.seedSamples)
        #expect(options.action == .serve)
        #expect(options.http.limits.maxBodyLength == 1024 * 1024)
    }

    /// `--help` prints each default from where it is set, so the two cannot disagree; and the
    /// store's configuration defaults to the same values when built without the options.
    @Test func theHelpNamesTheDefaultsTheOptionsHave() throws {
        let defaults = try ServerOptions(arguments: [], environment: [:])
        let lines = ServerOptions.usage.split(separator: "\n")
        func help(_ flag: String) -> String { lines.first { $0.hasPrefix("  \(flag) ") }.map(String.init) ?? "" }
        #expect(help("--max-subscribers").hasSuffix("(default \(defaults.maxSubscribers))"))
        #expect(help("--history").hasSuffix("(default \(defaults.historyCapacity))"))
        #expect(help("--max-body").hasSuffix("(default \(defaults.http.limits.maxBodyLength))"))
        #expect(help("--idle-timeout").hasSuffix("(default \(defaults.http.timeouts.idle.components.seconds))"))
        #expect(help("--port").contains("(default \(defaults.http.port);"))
        #expect(help("--log-level").hasSuffix("(default \(defaults.logLevel.rawValue))"))
        #expect(help("--log-format").hasSuffix("(default logfmt)"))
        #expect(defaults.storageConfiguration == StorageConfiguration())
    }

    @Test func theEnvironmentSetsWhatFlagsDoNotOverride() throws {
        let environment = ["TRIPS_HOST": "0.0.0.0", "PORT": "9000", "TRIPS_DATA": "/data", "TRIPS_NO_SAMPLES": "1", "TRIPS_THREADS": "3"]
        let fromEnvironment = try ServerOptions(arguments: [], environment: environment)
        #expect(fromEnvironment.http.host == "0.0.0.0" && fromEnvironment.http.port == 9000)
        #expect(fromEnvironment.dataDirectory == "/data" && !fromEnvironment.seedSamples)
        #expect(fromEnvironment.http.eventLoopCount == 3)
        let overridden = try ServerOptions(
            arguments: ["--port", "0", "--host", "::1"], environment: environment.merging(["TRIPS_PORT": "9100"]) { $1 })
        #expect(overridden.http.port == 0 && overridden.http.host == "::1")
        #expect(try ServerOptions(arguments: [], environment: ["TRIPS_PORT": "9100", "PORT": "9000"]).http.port == 9100)
    }

    @Test func aDatabaseURLChoosesPostgreSQLInsteadOfTheDataFolder() throws {
        let url = "postgres://trips:secret@db.internal:5432/trips"
        #expect(try ServerOptions(arguments: ["--database", url], environment: [:]).databaseURL == url)
        #expect(try ServerOptions(arguments: [], environment: ["DATABASE_URL": url]).databaseURL == url)
        // TRIPS_DATABASE_URL, then the flag, win over DATABASE_URL.
        let ours = "postgres:///trips?host=/var/run/postgresql"
        #expect(try ServerOptions(arguments: [], environment: ["DATABASE_URL": url, "TRIPS_DATABASE_URL": ours]).databaseURL == ours)
        #expect(try ServerOptions(arguments: ["--database", ours], environment: ["DATABASE_URL": url]).databaseURL == ours)
        #expect(try ServerOptions(arguments: [], environment: [:]).databaseURL == nil)
    }

    /// `ps` shows every user the command line: a password there gets a warning at start.
    @Test func aDatabasePasswordOnTheCommandLineIsNotedAndOneInTheEnvironmentIsNot() throws {
        let url = "postgres://trips:secret@db.internal/trips"
        #expect(try ServerOptions(arguments: ["--database", url], environment: [:]).isPasswordOnCommandLine)
        #expect(try ServerOptions(arguments: ["--database=\(url)"], environment: [:]).isPasswordOnCommandLine)
        #expect(try !ServerOptions(arguments: [], environment: ["TRIPS_DATABASE_URL": url]).isPasswordOnCommandLine)
        #expect(try !ServerOptions(arguments: [], environment: ["DATABASE_URL": url]).isPasswordOnCommandLine)
        #expect(
            try !ServerOptions(arguments: ["--database", "postgres://trips@db.internal/trips"], environment: [:]).isPasswordOnCommandLine)
    }

    @Test func aDatabaseAndADataFolderTogetherAreRefused() throws {
        let url = "postgres://trips@localhost/trips"
        #expect(throws: ServerOptions.UsageError.self) {
            try ServerOptions(arguments: ["--database", url, "--data", "/data"], environment: [:])
        }
        #expect(throws: ServerOptions.UsageError.self) { try ServerOptions(arguments: ["--in-memory"], environment: ["DATABASE_URL": url]) }
        // The container image sets TRIPS_DATA: a URL in the environment wins over it.
        #expect(try ServerOptions(arguments: [], environment: ["TRIPS_DATA": "/data", "DATABASE_URL": url]).databaseURL == url)
        #expect(throws: ServerOptions.UsageError.self) {
            try ServerOptions(arguments: ["--database", "mysql://localhost/trips"], environment: [:])
        }
    }

    @Test func everyLimitAndTimeoutHasAFlag() throws {
        let options = try ServerOptions(
            arguments: [
                "--max-body", "10", "--max-header", "2048", "--max-fields", "5", "--max-request-line", "100",
                "--header-timeout", "2", "--body-timeout", "3", "--idle-timeout", "4", "--write-timeout", "5", "--in-memory", "--log-level",
                "warning",
            ], environment: [:])
        #expect(options.http.limits.maxBodyLength == 10)
        #expect(options.http.limits.maxHeaderSectionLength == 2048)
        #expect(options.http.limits.maxHeaderFieldCount == 5)
        #expect(options.http.limits.maxRequestLineLength == 100)
        #expect(options.http.timeouts.header == .seconds(2))
        #expect(options.http.timeouts.bodyStall == .seconds(3))
        #expect(options.http.timeouts.idle == .seconds(4))
        #expect(options.http.timeouts.writeStall == .seconds(5))
        #expect(options.dataDirectory == nil)
        #expect(options.logLevel == .warning && options.logLevel > .info)
    }

    @Test func theLogFormatIsLogfmtUnlessAFlagOrTheEnvironmentSaysJSON() throws {
        #expect(try ServerOptions(arguments: [], environment: [:]).http.logFormat == .logfmt)
        #expect(try ServerOptions(arguments: ["--log-format", "json"], environment: [:]).http.logFormat == .json)
        #expect(try ServerOptions(arguments: [], environment: ["TRIPS_LOG_FORMAT": "json"]).http.logFormat == .json)
    }

    @Test func theIOEngineIsEpollUnlessAFlagOrTheEnvironmentSaysUring() throws {
        #expect(try ServerOptions(arguments: [], environment: [:]).http.engine == .epoll)
        #expect(try ServerOptions(arguments: ["--io", "uring"], environment: [:]).http.engine == .uring)
        #expect(try ServerOptions(arguments: [], environment: ["TRIPS_IO": "uring"]).http.engine == .uring)
        #expect(try ServerOptions(arguments: ["--io=epoll"], environment: ["TRIPS_IO": "uring"]).http.engine == .epoll)
    }

    @Test func theMostConnectionsComeFromAFlagOrTheEnvironment() throws {
        #expect(try ServerOptions(arguments: [], environment: [:]).http.limits.maxConnections == 10_000)
        #expect(try ServerOptions(arguments: ["--max-connections", "50"], environment: [:]).http.limits.maxConnections == 50)
        #expect(try ServerOptions(arguments: [], environment: ["TRIPS_MAX_CONNECTIONS": "60"]).http.limits.maxConnections == 60)
        #expect(throws: ServerOptions.UsageError.self) { try ServerOptions(arguments: ["--max-connections", "0"], environment: [:]) }
    }

    @Test(arguments: [
        (["--bogus"], "unknown option --bogus"),
        (["--port"], "--port needs a value"),
        (["--port", "99999"], #"--port must be a whole number from 0 to 65535, not "99999""#),
        (["--threads", "0"], #"--threads must be a whole number from 1 to 1024, not "0""#),
        (["--log-level", "loud"], #"log level must be debug, info, warning or error, not "loud""#),
        (["--log-format", "xml"], #"log format must be logfmt or json, not "xml""#),
        (["--io", "kqueue"], #"--io must be epoll or uring, not "kqueue""#),
    ])
    func badArgumentsSayWhatIsWrong(arguments: [String], message: String) {
        let error = #expect(throws: ServerOptions.UsageError.self) { try ServerOptions(arguments: arguments, environment: [:]) }
        #expect(error?.description == message)
    }

    @Test func helpVersionAndHealthCheckAreActions() throws {
        #expect(try ServerOptions(arguments: ["--help"], environment: [:]).action == .help)
        #expect(try ServerOptions(arguments: ["--version"], environment: [:]).action == .version)
        #expect(try ServerOptions(arguments: ["--check-health"], environment: [:]).action == .checkHealth)
        #expect(ServerOptions.usage.contains("--data DIR"))
    }

    @Test func aValueMayBeAttachedWithAnEqualsSign() throws {
        let options = try ServerOptions(
            arguments: ["--port=9090", "--host=::1", "--data=/tmp/a=b", "--max-body=10", "--log-level=warning"], environment: [:])
        #expect(options.http.port == 9090)
        #expect(options.http.host == "::1")
        #expect(options.dataDirectory == "/tmp/a=b")
        #expect(options.http.limits.maxBodyLength == 10)
        #expect(options.logLevel == .warning)
    }

    @Test(arguments: [["--in-memory=yes"], ["--port="], ["--port=abc"], ["--bogus=1"]])
    func anAttachedValueIsCheckedLikeASeparateOne(arguments: [String]) {
        #expect(throws: ServerOptions.UsageError.self) { try ServerOptions(arguments: arguments, environment: [:]) }
    }

    @Test func theChangeFeedHasFlagsAndEnvironmentVariables() throws {
        let options = try ServerOptions(
            arguments: ["--heartbeat", "5", "--history=50", "--max-subscribers", "3", "--compact-after", "500"], environment: [:])
        #expect(options.compactionRecords == 500)
        #expect(options.storageConfiguration.compactionRecords == 500 && !options.storageConfiguration.growsWithSnapshot)
        #expect(try ServerOptions(arguments: [], environment: [:]).storageConfiguration == StorageConfiguration())
        #expect(options.http.timeouts.heartbeat == .seconds(5))
        #expect(options.historyCapacity == 50)
        #expect(options.maxSubscribers == 3)
        let fromEnvironment = try ServerOptions(
            arguments: [], environment: ["TRIPS_HEARTBEAT": "7", "TRIPS_HISTORY": "9", "TRIPS_MAX_SUBSCRIBERS": "11"])
        #expect(fromEnvironment.http.timeouts.heartbeat == .seconds(7))
        #expect(fromEnvironment.historyCapacity == 9 && fromEnvironment.maxSubscribers == 11)
        #expect(throws: ServerOptions.UsageError.self) { try ServerOptions(arguments: ["--history", "0"], environment: [:]) }
    }

    @Test func theIdempotencyByteCapHasAFlagAndAnEnvironmentVariable() throws {
        #expect(try ServerOptions(arguments: [], environment: [:]).storageConfiguration.idempotencyBytes == 64 << 20)
        let options = try ServerOptions(arguments: ["--idempotency-bytes", "1000"], environment: ["TRIPS_IDEMPOTENCY_BYTES": "5"])
        #expect(options.storageConfiguration.idempotencyBytes == 1_000)
        #expect(try ServerOptions(arguments: [], environment: ["TRIPS_IDEMPOTENCY_BYTES": "5"]).idempotencyBytes == 5)
        let compacting = try ServerOptions(arguments: ["--idempotency-bytes=7", "--compact-after", "9"], environment: [:])
        #expect(compacting.storageConfiguration.idempotencyBytes == 7)
        #expect(throws: ServerOptions.UsageError.self) { try ServerOptions(arguments: ["--idempotency-bytes", "-1"], environment: [:]) }
    }

    @Test func everySettingHasAnEnvironmentVariable() throws {
        let environment = [
            "TRIPS_MAX_BODY": "10", "TRIPS_MAX_HEADER": "2048", "TRIPS_MAX_FIELDS": "5", "TRIPS_MAX_REQUEST_LINE": "100",
            "TRIPS_HEADER_TIMEOUT": "2", "TRIPS_BODY_TIMEOUT": "3", "TRIPS_IDLE_TIMEOUT": "4", "TRIPS_WRITE_TIMEOUT": "5",
            "TRIPS_IN_MEMORY": "1", "TRIPS_OPEN": "true", "TRIPS_PRIVATE": "1", "TRIPS_TOKENS_FILE": "/run/secrets/tokens",
            "TRIPS_CORS_ORIGINS": "https://a.example, https://b.example",
        ]
        let options = try ServerOptions(arguments: ["--max-fields", "6"], environment: environment)
        #expect(options.http.limits.maxBodyLength == 10 && options.http.limits.maxHeaderSectionLength == 2048)
        #expect(options.http.limits.maxHeaderFieldCount == 6)  // the flag wins
        #expect(options.http.limits.maxRequestLineLength == 100)
        #expect(options.http.timeouts.header == .seconds(2) && options.http.timeouts.bodyStall == .seconds(3))
        #expect(options.http.timeouts.idle == .seconds(4) && options.http.timeouts.writeStall == .seconds(5))
        #expect(options.dataDirectory == nil && options.isOpen && options.isPrivate)
        #expect(options.tokensFile == "/run/secrets/tokens")
        #expect(options.corsOrigins == ["https://a.example", "https://b.example"])
        #expect(ServerOptions.usage.contains("--cors-origin ORIGIN"))
        #expect(throws: ServerOptions.UsageError.self) { try ServerOptions(arguments: [], environment: ["TRIPS_MAX_BODY": "x"]) }
    }

    @Test func requireIfMatchIsOffByDefaultAndHasAFlagAndAnEnvironmentVariable() throws {
        #expect(try !ServerOptions(arguments: [], environment: [:]).requiresIfMatch)
        #expect(try ServerOptions(arguments: ["--require-if-match"], environment: [:]).requiresIfMatch)
        #expect(try ServerOptions(arguments: [], environment: ["TRIPS_REQUIRE_IF_MATCH": "1"]).requiresIfMatch)
        #expect(ServerOptions.usage.contains("--require-if-match"))
    }

    @Test func allowedHostsRepeatAndComeSpelledAsHostSendsThem() throws {
        let options = try ServerOptions(
            arguments: ["--allowed-host", "Trips.Example.com", "--allowed-host=fe80::1"],
            environment: ["TRIPS_ALLOWED_HOSTS": "a.example, 10.0.0.7"])
        #expect(options.allowedHosts == ["a.example", "10.0.0.7", "trips.example.com", "[fe80::1]"])
        #expect(try ServerOptions(arguments: [], environment: [:]).allowedHosts.isEmpty)
        #expect(ServerOptions.usage.contains("--allowed-host NAME"))
        for bad in ["trips.example.com:8080", "", "a b", "https://trips.example.com"] {
            let error = #expect(throws: ServerOptions.UsageError.self) {
                try ServerOptions(arguments: ["--allowed-host", bad], environment: [:])
            }
            #expect(error?.description.contains("--allowed-host needs a host name or address without a port") == true, "\(bad)")
        }
    }

    @Test func rateLimitsAreOffUnlessAskedForAndTakeFlagsOrVariables() throws {
        let none = try ServerOptions(arguments: [], environment: [:])
        #expect(none.rateLimit == RateLimitOptions() && none.rateLimit.rate == nil)
        let flags = try ServerOptions(
            arguments: ["--rate-limit", "10/s", "--rate-limit-reads", "--trusted-proxy", "172.28.0.10", "--trusted-proxy=::1"],
            environment: [:])
        #expect(flags.rateLimit.rate == RateLimiter.Rate(10, per: .seconds(1), burst: 20))
        #expect(flags.rateLimit.limitsReads)
        #expect(flags.rateLimit.trustedProxies == [IPAddress("172.28.0.10"), IPAddress("::1")])
        let variables = try ServerOptions(
            arguments: [],
            environment: [
                "TRIPS_RATE_LIMIT": "5/s", "TRIPS_RATE_LIMIT_BURST": "7", "TRIPS_RATE_LIMIT_READS": "1",
                "TRIPS_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2",
            ])
        #expect(variables.rateLimit.rate == RateLimiter.Rate(5, per: .seconds(1), burst: 7))
        #expect(variables.rateLimit.limitsReads && variables.rateLimit.trustedProxies.count == 2)
        #expect(ServerOptions.usage.contains("--rate-limit N/s") && ServerOptions.usage.contains("--trusted-proxy ADDRESS"))
    }

    @Test(arguments: [
        ["--rate-limit", "10"], ["--rate-limit", "0/s"], ["--rate-limit", "x/s"], ["--rate-limit", "10/m"], ["--rate-limit", "2000000/s"],
        ["--rate-limit", "10/s", "--rate-limit-burst", "0"], ["--rate-limit-burst", "5"], ["--rate-limit-reads"],
        ["--trusted-proxy", "nginx"], ["--trusted-proxy", "10.0.0.0/8"],
    ])
    func badRateLimitValuesAreUsageErrors(arguments: [String]) {
        #expect(throws: ServerOptions.UsageError.self) { try ServerOptions(arguments: arguments, environment: [:]) }
    }
}
