// swift-tools-version: 6.2
import PackageDescription

/// Trips: an HTTP/1.1 JSON service over plain sockets. No package dependencies by design.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "Trips",
    products: [
        .executable(name: "trips-server", targets: ["TripsServer"]),
        .library(name: "TripsDomain", targets: ["TripsDomain"]),
    ],
    targets: [
        .target(name: "TripsDomain", swiftSettings: strictSettings),
        .executableTarget(
            name: "TripsServer",
            dependencies: ["TripsDomain"],
            resources: [.embedInCode("Resources/openapi.yaml")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TripsServerTests",
            dependencies: ["TripsServer", "TripsDomain"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
