import TripsFormats

/// A type with several representations (media types), most preferred first: content
/// negotiation answers in the first one a client's `Accept` likes best, as SwiftUI's
/// `Transferable` picks the first representation a drop target takes.
public protocol Transferable: Sendable {
    static var transferRepresentations: [TransferRepresentation<Self>] { get }
}

/// One form a value can be written in (an export), as `CodableRepresentation` or
/// `ProxyRepresentation(exporting:)` declare one. A representation in words (a sentence) is
/// *localized*: it is written in the language the client asks for.
public struct TransferRepresentation<Value>: Sendable {
    public let mediaType: MediaType
    /// Whether the words depend on the language (`Accept-Language` chooses it).
    public let isLocalized: Bool
    private let write: @Sendable (Value, Language) -> [UInt8]

    /// A representation without words: the same in every language.
    public init(_ mediaType: MediaType, export: @escaping @Sendable (Value) -> [UInt8]) {
        self.mediaType = mediaType
        self.isLocalized = false
        self.write = { value, _ in export(value) }
    }

    /// A representation in words, written in a language.
    public init(_ mediaType: MediaType, localizedExport: @escaping @Sendable (Value, Language) -> [UInt8]) {
        self.mediaType = mediaType
        self.isLocalized = true
        self.write = localizedExport
    }

    /// The value in this representation (in English, where it has words).
    public func export(_ value: Value) -> [UInt8] {
        write(value, .english)
    }

    public func export(_ value: Value, in language: Language) -> [UInt8] {
        write(value, language)
    }
}

/// A type that can be read from a request body in several forms (chosen by `Content-Type`),
/// most preferred first, as `ProxyRepresentation(importing:)` declares one.
public protocol Importable: Sendable {
    static var importRepresentations: [ImportRepresentation<Self>] { get }
}

extension Importable {
    /// The media types the value can be read from, most preferred first.
    public static var importMediaTypes: [MediaType] { importRepresentations.map(\.mediaType) }
}

/// One form a value can be read from.
public struct ImportRepresentation<Value>: Sendable {
    public let mediaType: MediaType
    /// Reads the body; the language is the body's `Content-Language` where the request names
    /// one this server reads (nil: a text body is read in whichever language it is in).
    public let decode: @Sendable ([UInt8], Language?) throws(TripsError) -> Value

    public init(_ mediaType: MediaType, decode: @escaping @Sendable ([UInt8], Language?) throws(TripsError) -> Value) {
        self.mediaType = mediaType
        self.decode = decode
    }
}

extension ImportRepresentation {
    /// Reads a JSON document, then the value from it; `shortcut` first, for a value it reads
    /// straight from the bytes (nil: the document is parsed, and `read` says what it holds).
    package static func json(
        shortcut: @escaping @Sendable ([UInt8]) -> Value? = { _ in nil },
        _ read: @escaping @Sendable (JSONValue) throws(TripsError) -> Value
    ) -> Self {
        ImportRepresentation(.json) { (bytes, _) throws(TripsError) in
            // A body the shortcut does not take (an invalid draft among them) is read again
            // in full: within the body limit, and only to say why it is refused.
            if let value = shortcut(bytes) { return value }
            let document: JSONValue
            do throws(JSONSyntaxError) { document = try JSONValue(parsing: bytes) } catch { throw .malformedJSON(error) }
            return try read(document)
        }
    }

    /// Reads UTF-8 text, then the value from it, in its language.
    package static func text(_ read: @escaping @Sendable (String, Language?) throws(TripsError) -> Value) -> Self {
        ImportRepresentation(.plainText) { (bytes, language) throws(TripsError) in
            guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformedText }
            return try read(text, language)
        }
    }
}

extension Trip: Transferable {
    /// Inside Trips a trip travels whole, as JSON; anywhere else, as a sentence of text.
    public static let transferRepresentations: [TransferRepresentation<Trip>] = [
        TransferRepresentation(.json) { trip in
            var writer = JSONWriter()
            trip.writeJSON(to: &writer)
            return writer.bytes
        },
        TransferRepresentation(.plainText) { trip, language in Array((trip.sentence(in: language) + "\n").utf8) },
    ]
}

extension Array: Transferable where Element == Trip {
    /// A list travels as a JSON array, or as one sentence per line.
    ///
    /// A generic extension cannot hold a stored static, so this returns a constant made
    /// once; a computed list would build its closures again on every request.
    public static var transferRepresentations: [TransferRepresentation<[Trip]>] {
        tripListRepresentations
    }
}

private let tripListRepresentations: [TransferRepresentation<[Trip]>] = [
    TransferRepresentation(.json) { trips in
        var writer = JSONWriter(reservingCapacity: 256 * trips.count + 2)
        trips.writeJSON(to: &writer)
        return writer.bytes
    },
    TransferRepresentation(.plainText) { trips, language in Array(trips.sentences(in: language).utf8) },
]

extension Array where Element == Trip {
    /// The trips as a JSON array of trip objects.
    public func writeJSON(to writer: inout JSONWriter) {
        writer.appendRaw("[")
        for (offset, trip) in enumerated() {
            if offset > 0 { writer.appendRaw(",") }
            trip.writeJSON(to: &writer)
        }
        writer.appendRaw("]")
    }

    /// The trips as text: one sentence per line.
    public func sentences(in language: Language = .english) -> String {
        map { $0.sentence(in: language) + "\n" }.joined()
    }
}

extension NewTrips: Importable {
    /// New trips arrive as JSON (a draft or an array of drafts), or as text (one sentence
    /// per line), as `ProxyRepresentation(importing:)` reads a trip from its sentence.
    public static let importRepresentations: [ImportRepresentation<NewTrips>] = [
        .json(shortcut: NewTrips.init(flatJSON:)) { (json) throws(TripsError) in try NewTrips(json: json) },
        .text { (text, language) throws(TripsError) in try NewTrips(text: text, language: language) },
    ]
}

extension FavoriteDrop: Importable {
    /// Dropped trips arrive as JSON (trips or ids), or as text with one trip per line.
    public static let importRepresentations: [ImportRepresentation<FavoriteDrop>] = [
        .json { (json) throws(TripsError) in try FavoriteDrop(json: json) },
        .text { text, language in FavoriteDrop(text: text, language: language) },
    ]
}

extension ReorderDifference: Importable {
    public static let importRepresentations: [ImportRepresentation<ReorderDifference>] = [
        .json { (json) throws(TripsError) in try ReorderDifference(json: json) }
    ]
}
