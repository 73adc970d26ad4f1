// swift-tools-version: 6.2
import PackageDescription

/// Trips: an HTTP/1.1 JSON service over plain sockets. No package dependencies by design.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .treatAllWarnings(as: .error),
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
        .executable(name: "FuzzRequestParser", targets: ["FuzzRequestParser"]),
        .executable(name: "FuzzAccept", targets: ["FuzzAccept"]),
        .executable(name: "FuzzJSONBodies", targets: ["FuzzJSONBodies"]),
        .executable(name: "FuzzTextImport", targets: ["FuzzTextImport"]),
        .executable(name: "FuzzPostgresMessages", targets: ["FuzzPostgresMessages"]),
    ],
    targets: [
        .target(name: "TripsDomain", swiftSettings: strictSettings),
        .target(
            name: "TripsServer",
            dependencies: ["TripsDomain"],
            resources: [
                .embedInCode("Resources/openapi.yaml"), .embedInCode("Resources/page/trips.css"),
                .embedInCode("Resources/page/trips.js"), .embedInCode("Resources/page/trips.svg"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TripsServerApp",
            dependencies: ["TripsServer"],
            swiftSettings: strictSettings
        ),
        .target(name: "FuzzSupport", dependencies: ["TripsDomain"], path: "Fuzz/FuzzSupport", swiftSettings: strictSettings),
        fuzzTarget("FuzzRequestParser", dependencies: ["TripsServer"]),
        fuzzTarget("FuzzAccept", dependencies: ["TripsServer", "TripsDomain"]),
        fuzzTarget("FuzzJSONBodies", dependencies: ["FuzzSupport", "TripsDomain"]),
        fuzzTarget("FuzzTextImport", dependencies: ["FuzzSupport", "TripsDomain"]),
        fuzzTarget("FuzzPostgresMessages", dependencies: ["TripsServer"]),
        .testTarget(
            name: "TripsServerTests",
            dependencies: ["TripsServer", "TripsDomain"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
