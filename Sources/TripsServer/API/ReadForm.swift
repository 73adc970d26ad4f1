import TripsDomain

/// What a read of a trip or of a list answers in: one of the value's own representations,
/// as the domain declares them, or the page a browser shows (`text/html`), declared after
/// them all, so `*/*` and no `Accept` keep getting JSON while a browser's
/// `text/html,…,*/*;q=0.8` gets the page.
enum ReadForm<Value: Transferable>: Sendable {
    case representation(Negotiated<Value>)
    case page

    /// The media types offered, most preferred first.
    static var mediaTypes: [MediaType] { Value.transferRepresentations.map(\.mediaType) + [.html] }

    init(position: Int) {
        self = position < Value.transferRepresentations.count ? .representation(Negotiated(position: position)) : .page
    }

    var mediaType: MediaType {
        switch self {
        case .representation(let chosen): chosen.mediaType
        case .page: .html
        }
    }

    /// Where the representation cache files this form's response: the page after the rest.
    var position: Int {
        switch self {
        case .representation(let chosen): chosen.position
        case .page: Value.transferRepresentations.count
        }
    }
}
