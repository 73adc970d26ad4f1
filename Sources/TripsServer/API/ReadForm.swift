import TripsDomain
import TripsFormats

/// What a read of a trip or of a list answers in: one of the value's own representations,
/// as the domain declares them, or the page a browser shows (`text/html`), declared after
/// them all, so `*/*` and no `Accept` keep getting JSON while a browser's
/// `text/html,…,*/*;q=0.8` gets the page. The page's sentences are in a language too.
enum ReadForm<Value: PageRepresentable>: Sendable {
    case representation(Negotiated<Value>)
    case page(Language?)

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
