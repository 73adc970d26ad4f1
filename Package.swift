// swift-tools-version: 6.2
import PackageDescription

/// Trips: an HTTP/1.1 JSON service over plain sockets. No package dependencies by design.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .treatAllWarnings(as: .error),
]

/// The modules on every request's and every write's path, the event loop's (TripsHTTP) and the
/// PostgreSQL client's (TripsPostgres), check exclusive access in a release build only where
/// the compiler proves it statically: the dynamic checks (a runtime call and a thread-local
/// access set per class property touched) cost about 1,300 instructions of each request's
/// 16,000, and 14,000 of each create an instance writes to PostgreSQL, most of them reading a
/// connection's buffer message by message (#32, #33). Safe because every build that runs the
/// tests (debug, and the sanitizers' builds) keeps the dynamic checks, so an overlapping
/// access traps there; and these objects are confined to one thread at a time (`EventLoop`,
/// `HTTPConnection` and `PostgresConnection` are not `Sendable`; the pool lends a connection
/// to one thread at a time).
let threadConfinedSettings: [SwiftSetting] =
    strictSettings + [
        .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
    ]

/// A libFuzzer target: `Fuzz/<name>/main.swift` holds only `LLVMFuzzerTestOneInput`, the
/// checks live beside it. `scripts/checks/fuzz.sh` builds each as its own product with
/// `--sanitize=fuzzer`; a plain build compiles and links it too, as an executable that
/// does nothing. Targets that check TripsServer internals use `@testable import` (debug only).
func fuzzTarget(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies,
        path: "Fuzz/\(name)",
        swiftSettings: strictSettings
    )
}

let package = Package(
    name: "Trips",
    products: [
        .executable(name: "trips-server", targets: ["TripsServerApp"]),
        .library(name: "TripsDomain", targets: ["TripsDomain"]),
        .library(name: "TripsClient", targets: ["TripsClient"]),
        .executable(name: "trips", targets: ["TripsCommand"]),
        .executable(name: "FuzzRequestParser", targets: ["FuzzRequestParser"]),
        .executable(name: "FuzzAccept", targets: ["FuzzAccept"]),
        .executable(name: "FuzzJSONBodies", targets: ["FuzzJSONBodies"]),
        .executable(name: "FuzzTextImport", targets: ["FuzzTextImport"]),
        .executable(name: "FuzzPostgresMessages", targets: ["FuzzPostgresMessages"]),
        .executable(name: "FuzzImages", targets: ["FuzzImages"]),
    ],
    targets: [
        // The layers, bottom up; each imports only those below it, so a wrong-way import is
        // a compile error. README.md "Architecture" draws the graph.
        // The system's zlib (gzip content coding): a library every Linux system has, linked
        // through its header rather than a package.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The files the binary carries (the API's description, the page's assets and words,
        // the sample photos), read in by the C compiler's `#embed`: SwiftPM's `.embedInCode`
        // writes them as a Swift array literal, which took two minutes of every debug build.
        .target(
            name: "TripsResources",
            // clang 21 writes DWARF 5 by default, which valgrind 3.19 (Debian 12's) cannot read:
            // one such unit stopped callgrind on the whole binary (scripts/bench/profile.sh).
            cSettings: [.unsafeFlags(["-gdwarf-4"])]
        ),
        // CRC-32C by the processor's instruction, which Swift cannot ask for (`CRC32C`).
        .target(name: "TripsCRC32C", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // io_uring's rings, which Swift's atomics cannot address (`IOURing`).
        .target(name: "TripsIOURing", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .target(
            name: "TripsPlatform", dependencies: ["CZlib", "TripsResources", "TripsCRC32C", "TripsIOURing"],
            swiftSettings: strictSettings),
        .target(name: "TripsFormats", swiftSettings: strictSettings),
        .target(name: "TripsDomain", dependencies: ["TripsFormats"], swiftSettings: strictSettings),
        .target(name: "TripsHTTP", dependencies: ["TripsPlatform", "TripsFormats"], swiftSettings: threadConfinedSettings),
        .target(name: "TripsPostgres", dependencies: ["TripsPlatform", "TripsFormats"], swiftSettings: threadConfinedSettings),
        .target(
            name: "TripsStore",
            dependencies: ["TripsPlatform", "TripsFormats", "TripsDomain", "TripsPostgres", "TripsResources"],
            // The sample trips' photos, compiled in by TripsResources (`SampleTrips`).
            exclude: ["Resources"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TripsServer",
            dependencies: [
                "TripsPlatform", "TripsFormats", "TripsDomain", "TripsHTTP", "TripsPostgres", "TripsStore", "TripsResources",
            ],
            // openapi.yaml and the page's files (`PageAsset`, `PageWords`), compiled in by TripsResources.
            exclude: ["Resources"],
            swiftSettings: strictSettings
        ),
        // The Swift client of the service and the `trips` command on it: Foundation only, on the
        // domain's types (README "From Swift", "From the terminal").
        .target(name: "TripsClient", dependencies: ["TripsFormats", "TripsDomain"], swiftSettings: strictSettings),
        .executableTarget(name: "TripsCommand", dependencies: ["TripsDomain", "TripsClient"], swiftSettings: strictSettings),
        .executableTarget(
            name: "TripsServerApp",
            dependencies: ["TripsServer"],
            swiftSettings: strictSettings
        ),
        .target(name: "FuzzSupport", dependencies: ["TripsDomain"], path: "Fuzz/FuzzSupport", swiftSettings: strictSettings),
        fuzzTarget("FuzzRequestParser", dependencies: ["TripsHTTP"]),
        fuzzTarget("FuzzAccept", dependencies: ["TripsServer", "TripsHTTP", "TripsFormats", "TripsDomain"]),
        fuzzTarget("FuzzJSONBodies", dependencies: ["FuzzSupport", "TripsFormats", "TripsDomain"]),
        fuzzTarget("FuzzTextImport", dependencies: ["FuzzSupport", "TripsFormats", "TripsDomain"]),
        fuzzTarget("FuzzPostgresMessages", dependencies: ["TripsPostgres"]),
        fuzzTarget("FuzzImages", dependencies: ["TripsFormats"]),
        .target(name: "TripsTestSupport", path: "Tests/TripsTestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "TripsFormatsTests", dependencies: ["TripsFormats"], exclude: ["Fixtures"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "TripsDomainTests", dependencies: ["TripsDomain", "TripsFormats", "TripsTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "TripsServerTests",
            dependencies: [
                "TripsPlatform", "TripsFormats", "TripsDomain", "TripsHTTP", "TripsPostgres", "TripsStore", "TripsServer",
                "TripsClient", "TripsTestSupport", "CZlib",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
