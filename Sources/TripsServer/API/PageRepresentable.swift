import TripsDomain
import TripsFormats

/// A value the browser page shows: a trip, or a list of trips.
protocol PageRepresentable: Transferable {
    /// Its representations' media types and then `text/html`, made once: negotiation offers
    /// them on every read.
    static var readMediaTypes: [MediaType] { get }
    /// Every media type and language a representation can be written in, as its tags tell
    /// them apart, made once: a conditional change checks `If-Match` against all of them.
    static var readVariants: [(mediaType: MediaType, language: Language?)] { get }
}

extension PageRepresentable {
    /// What `readMediaTypes` holds, for the constants that keep it.
    static func mediaTypesWithPage() -> [MediaType] {
        transferRepresentations.map(\.mediaType) + [.html]
    }

    /// What `readVariants` holds: English for each media type, and every other language for
    /// the ones with words (text, and the page).
    static func variantsWithPage() -> [(mediaType: MediaType, language: Language?)] {
        let localized = transferRepresentations.map(\.isLocalized) + [true]
        return zip(mediaTypesWithPage(), localized).flatMap { mediaType, isLocalized in
            [(mediaType, nil)] + (isLocalized ? Language.allCases.dropFirst().map { (mediaType, $0) } : [])
        }
    }
}

extension Trip: PageRepresentable {
    static let readMediaTypes = mediaTypesWithPage()
    static let readVariants = variantsWithPage()
}

extension Array: PageRepresentable where Element == Trip {
    static var readMediaTypes: [MediaType] { tripListReadMediaTypes }
    static var readVariants: [(mediaType: MediaType, language: Language?)] { tripListReadVariants }
}

/// A generic extension cannot hold a stored static: the list's constants live here.
private let tripListReadMediaTypes = [Trip].mediaTypesWithPage()
private let tripListReadVariants = [Trip].variantsWithPage()
