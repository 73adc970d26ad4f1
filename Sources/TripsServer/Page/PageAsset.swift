import TripsDomain
import TripsFormats
import TripsHTTP
import TripsPlatform

/// The page's stylesheet, script and icon, compiled into the binary from `Resources/page/`: the
/// page needs no other file, no CDN and no build step.
///
/// Each is served with a strong ETag made from its bytes and `Cache-Control: no-cache`, so
/// a browser keeps its copy and asks whether it is still current (a 304, no body) on each
/// page load: a new server binary is never shown with an old script.
enum PageAsset: Sendable, CaseIterable {
    case stylesheet, script, icon

    /// Its name under `/assets/`.
    var fileName: StaticString {
        switch self {
        case .stylesheet: "trips.css"
        case .script: "trips.js"
        case .icon: "trips.svg"
        }
    }

    var path: String { "/assets/\(fileName)" }

    var mediaType: MediaType {
        switch self {
        case .stylesheet: .css
        case .script: .javaScript
        case .icon: .svg
        }
    }

    var bytes: [UInt8] {
        switch self {
        case .stylesheet: PackageResources.trips_css
        case .script: PackageResources.trips_js
        case .icon: PackageResources.trips_svg
        }
    }

    /// A strong tag made from the bytes: it changes exactly when the file does.
    var etag: EntityTag { Self.tags[self]! }

    private static let tags = Dictionary(
        uniqueKeysWithValues: allCases.map { asset in
            (asset, EntityTag(String(CRC32C.checksum(asset.bytes), radix: 16) + "-" + String(asset.bytes.count)))
        })
}
