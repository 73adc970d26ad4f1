import Foundation
import TripsDomain
import TripsPlatform
import TripsResources

/// The page's own words in one language (headings, buttons, labels, the messages the script
/// announces), from `Resources/page/words/<tag>.json`: one catalog, read here by the server
/// and by `trips.js` as `/assets/words/<tag>.js`, so the page never mixes two languages.
///
/// A key names a phrase (`confirm.warning`). A counted phrase has one key per CLDR
/// plural category its language uses (`list.count.one`, `list.count.few`, …), chosen with
/// the same rules that pick "2 noce" in a trip's sentence. Placeholders are `{name}`.
struct PageWords: Sendable {
    let language: Language
    private let phrases: [String: String]

    /// The words of `language`, read once.
    static func `for`(_ language: Language) -> PageWords { all[language.index] }

    private static let all: [PageWords] = Language.allCases.map { language in
        PageWords(language: language, phrases: (try? JSONDecoder().decode([String: String].self, from: Data(catalog(language)))) ?? [:])
    }

    /// The catalog's bytes, as compiled into the binary (TripsResources).
    static func catalog(_ language: Language) -> [UInt8] {
        catalogs[language.index]
    }

    private static let catalogs = Language.allCases.map { trips_resource_page_words($0.tag).bytes }

    /// Every key of the catalog (the tests hold each language to English's).
    var keys: Set<String> { Set(phrases.keys) }

    /// The phrase for `key`, or the key itself when the catalog lacks it (the tests keep
    /// every key the code uses in every language, so that is never shown).
    subscript(_ key: String) -> String { phrases[key] ?? key }

    /// The phrase with each `{name}` replaced by its value.
    subscript(_ key: String, _ values: KeyValuePairs<String, String>) -> String {
        values.reduce(self[key]) { phrase, value in Self.replacing("{\(value.key)}", with: value.value, in: phrase) }
    }

    /// The form of a counted phrase that goes with `count` ("1 trip", "2 trips", "5 podróży"),
    /// `{count}` written as this language writes numbers.
    func counted(_ key: String, _ count: Int, _ values: KeyValuePairs<String, String> = [:]) -> String {
        let phrase = self["\(key).\(language.pluralCategory(count).key)", values]
        return Self.replacing("{count}", with: number(count), in: phrase)
    }

    /// `phrase` with every `placeholder` (`{city}`) replaced by `value`, left to right, byte by
    /// byte: Foundation's `replacingOccurrences` bridges to `NSString` and cost a fifth of a
    /// cold page's render (each of 200 rows fills in its price and its city).
    static func replacing(_ placeholder: String, with value: String, in phrase: String) -> String {
        let target = Array(placeholder.utf8)
        let bytes = Array(phrase.utf8)
        guard let first = target.first, bytes.count >= target.count else { return phrase }
        var result: [UInt8] = []
        var copied = 0
        var index = 0
        while index <= bytes.count - target.count {
            if bytes[index] == first && bytes[index..<index + target.count].elementsEqual(target) {
                if result.isEmpty { result.reserveCapacity(bytes.count + value.utf8.count) }
                result.append(contentsOf: bytes[copied..<index])
                result.append(contentsOf: value.utf8)
                index += target.count
                copied = index
            } else {
                index += 1
            }
        }
        guard copied > 0 else { return phrase }
        result.append(contentsOf: bytes[copied...])
        return String(decoding: result, as: UTF8.self)
    }
}

extension PluralCategory {
    /// Its name in CLDR and in the catalog's keys.
    fileprivate var key: String {
        switch self {
        case .one: "one"
        case .few: "few"
        case .many: "many"
        case .other: "other"
        }
    }
}
