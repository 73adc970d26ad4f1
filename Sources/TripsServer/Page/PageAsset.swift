import TripsDomain
import TripsFormats
import TripsHTTP
import TripsPlatform
import TripsResources

/// The page's stylesheet, script, icon and words, compiled into the binary from
/// `Resources/page/`: the page needs no other file, no CDN and no build step.
///
/// Each is served with a strong ETag made from its bytes and `Cache-Control: no-cache`, so
/// a browser keeps its copy and asks whether it is still current (a 304, no body) on each
/// page load: a new server binary is never shown with an old script.
enum PageAsset: Sendable, Hashable, CaseIterable {
    case stylesheet, script, icon
    /// The catalog of a language's words (`PageWords`) as a script the page loads before
    /// `trips.js`: `const WORDS = {…};`.
    case words(Language)

    /// The assets served each at a path of its own; the words share one, `wordsPath`.
    static let files: [PageAsset] = [.stylesheet, .script, .icon]
    static let allCases = files + Language.allCases.map(Self.words)

    /// The one path of every language's words: `?lang=` names the language.
    static let wordsPath = "/assets/words.js"

    /// Where it is served.
    var path: String {
        switch self {
        case .stylesheet: "/assets/trips.css"
        case .script: "/assets/trips.js"
        case .icon: "/assets/trips.svg"
        case .words(let language): "\(Self.wordsPath)?lang=\(language.tag)"
        }
    }

    var mediaType: MediaType {
        switch self {
        case .stylesheet: .css
        case .script, .words: .javaScript
        case .icon: .svg
        }
    }

    var bytes: [UInt8] {
        switch self {
        case .stylesheet: Self.stylesheetBytes
        case .script: Self.scriptBytes
        case .icon: Self.iconBytes
        case .words(let language): Self.wordScripts[language.index]
        }
    }

    /// The files, as compiled into the binary (TripsResources).
    private static let stylesheetBytes = trips_resource_page_css().bytes
    private static let scriptBytes = trips_resource_page_js().bytes
    private static let iconBytes = trips_resource_page_svg().bytes

    /// A strong tag made from the bytes: it changes exactly when the file does.
    var etag: EntityTag { Self.tags[self]! }

    private static let tags = Dictionary(
        uniqueKeysWithValues: allCases.map { asset in
            (asset, EntityTag(String(CRC32C.checksum(asset.bytes), radix: 16) + "-" + String(asset.bytes.count)))
        })

    /// A JSON object is a JavaScript expression: the catalog needs no conversion.
    private static let wordScripts = Language.allCases.map { language in
        Array("const WORDS = ".utf8) + PageWords.catalog(language) + Array(";\n".utf8)
    }
}
