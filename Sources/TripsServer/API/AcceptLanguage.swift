import TripsDomain
import TripsHTTP

/// A parsed `Accept-Language` field (RFC 9110 §12.5.4): language ranges with weights, and
/// the choice among the languages this server writes by RFC 4647 lookup.
struct AcceptLanguage: Sendable, Hashable {
    struct Range: Sendable, Hashable {
        /// `fr-CA`, or `*`.
        let tag: String
        /// Thousandths, as in `Accept`.
        let quality: Int
    }

    /// The ranges in the order sent; malformed elements are skipped, as in `Accept`.
    let ranges: [Range]

    init(_ values: [String]) {
        ranges = values.flatMap { value in splitList(value).compactMap(Self.parseRange) }
    }

    /// `language-range [ weight ]`; `language-range = (1*8ALPHA *("-" 1*8alphanum)) / "*"`.
    static func parseRange(_ element: Substring) -> Range? {
        let parts = splitList(element, separator: UInt8(ascii: ";"))
        guard let tag = parts.first, isLanguageRange(tag) else { return nil }
        var quality = 1000
        if parts.count > 1 {
            guard parts.count == 2, parts[1].lowercased().hasPrefix("q="),
                let weight = AcceptField.parseQuality(String(parts[1].dropFirst(2)))
            else { return nil }
            quality = weight
        }
        return Range(tag: String(tag), quality: quality)
    }

    private static func isLanguageRange(_ text: Substring) -> Bool {
        if text == "*" { return true }
        let subtags = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = subtags.first, (1...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return false
        }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.count) && subtag.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// The language to write in: the first supported one that the best-weighted ranges find
    /// by lookup, ties in the order sent; `*`, or nothing acceptable that we have, is
    /// English (RFC 9110 lets a server send a language the client did not ask for). A range
    /// with `q=0` is "not this one".
    var chosen: Language {
        let refusals = ranges.filter { $0.quality == 0 }.map { $0.tag.lowercased() }
        let wanted = ranges.enumerated().filter { $0.element.quality > 0 }
            .sorted { ($0.element.quality, -$0.offset) > ($1.element.quality, -$1.offset) }
        for range in wanted.map(\.element) {
            if range.tag == "*" { return .english }
            if let language = Language(lookingUp: range.tag), !Self.isRefused(language, by: refusals) { return language }
        }
        return .english
    }

    /// Whether a `q=0` range covers the language by RFC 4647 basic filtering: `fr` refuses
    /// French, `fr-CA` refuses only Canadian French, which this server does not write.
    private static func isRefused(_ language: Language, by refusals: [String]) -> Bool {
        let tag = language.tag.lowercased()
        return refusals.contains { $0 == tag || tag.hasPrefix($0 + "-") }
    }
}
