import TripsDomain

/// A value the browser page shows: a trip, or a list of trips.
protocol PageRepresentable: Transferable {
    /// Its representations' media types and then `text/html`, made once: negotiation offers
    /// them on every read.
    static var readMediaTypes: [MediaType] { get }
}

extension PageRepresentable {
    /// What `readMediaTypes` holds, for the constants that keep it.
    static func mediaTypesWithPage() -> [MediaType] {
        transferRepresentations.map(\.mediaType) + [.html]
    }
}

extension Trip: PageRepresentable {
    static let readMediaTypes = mediaTypesWithPage()
}

extension Array: PageRepresentable where Element == Trip {
    static var readMediaTypes: [MediaType] { tripListReadMediaTypes }
}

/// A generic extension cannot hold a stored static: the list's constant lives here.
private let tripListReadMediaTypes = [Trip].mediaTypesWithPage()

/// What a read of a trip or of a list answers in: one of the value's own representations,
/// as the domain declares them, or the page a browser shows (`text/html`), declared after
/// them all, so `*/*` and no `Accept` keep getting JSON while a browser's
/// `text/html,…,*/*;q=0.8` gets the page. The page's sentences are in a language too.
enum ReadForm<Value: PageRepresentable>: Sendable {
    case representation(Negotiated<Value>)
    case page(Language?)

    /// Every media type and language a representation can be written in, as its tags tell
    /// them apart: English for each, and every other language for the ones with words.
    static var variants: [(mediaType: MediaType, language: Language?)] {
        let localized = Value.transferRepresentations.map(\.isLocalized) + [true]
        return zip(Value.readMediaTypes, localized).flatMap { mediaType, isLocalized in
            [(mediaType, nil)] + (isLocalized ? Language.allCases.dropFirst().map { (mediaType, $0) } : [])
        }
    }

    var mediaType: MediaType {
        switch self {
        case .representation(let chosen): chosen.mediaType
        case .page: .html
        }
    }

    var language: Language? {
        switch self {
        case .representation(let chosen): chosen.language
        case .page(let language): language
        }
    }

    /// Where the representation cache files this form's response: the page after the rest.
    var cacheSlot: Int {
        switch self {
        case .representation(let chosen): chosen.cacheSlot
        case .page(let language): LanguageChoice.slot(position: Value.transferRepresentations.count, language)
        }
    }
}
