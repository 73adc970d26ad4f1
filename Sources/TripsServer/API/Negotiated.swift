import TripsDomain
import TripsFormats

/// The representation of `Value` that negotiation chose for a response, and the language
/// it is written in where it has words.
///
/// It keeps its position in the declared order too, which is how the representation
/// cache files responses (an array slot per representation, not a dictionary lookup).
struct Negotiated<Value: Transferable>: Sendable {
    /// Where the representation stands in `Value.transferRepresentations`.
    let position: Int
    /// The language `Accept-Language` chose; nil when the representation has no words or the
    /// request asked for no language (then English, with the headers as before languages).
    var language: Language? = nil

    var representation: TransferRepresentation<Value> { Value.transferRepresentations[position] }
    var mediaType: MediaType { representation.mediaType }

    /// The cache slot: one per representation and language choice (none, or each language).
    var cacheSlot: Int { LanguageChoice.slot(position: position, language) }
}

/// Where a response in a representation and a language choice is cached: no stated
/// language first (the answer without `Accept-Language`), then each language.
enum LanguageChoice {
    /// `Language.allCases.count + 1`, written as a literal: a static made from an expression
    /// is read through `swift_once` on every request (`NegotiatedTests` checks the sum).
    static let count = 8

    static func slot(position: Int, _ language: Language?) -> Int {
        position * count + (language.map { $0.index + 1 } ?? 0)
    }
}
