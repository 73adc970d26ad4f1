import Foundation
import Testing
import TripsDomain

@testable import TripsServer

/// The page's words: every language has every phrase, in each plural form its rules use;
/// every key the server and the script ask for is in the catalog; numbers keep their digits.
@Suite struct PageWordsTests {
    /// The plural categories CLDR's rules give whole numbers in each language: a counted
    /// phrase has exactly these forms (and `other`, which every language names).
    private static let pluralForms: [Language: Set<String>] = [
        .english: ["one", "other"], .german: ["one", "other"], .japanese: ["other"],
        .french: ["one", "many", "other"], .spanish: ["one", "many", "other"], .brazilianPortuguese: ["one", "many", "other"],
        .polish: ["one", "few", "many", "other"],
    ]

    /// A key's phrase and, for a counted one, its plural form.
    private static func split(_ key: String) -> (phrase: String, form: String?) {
        let forms: Set<Substring> = ["one", "few", "many", "other"]
        guard let dot = key.lastIndex(of: "."), forms.contains(key[key.index(after: dot)...]) else { return (key, nil) }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }

    /// The phrases of a language, each with the plural forms it has (empty: not counted).
    private static func phrases(_ language: Language) -> [String: Set<String>] {
        PageWords.for(language).keys.reduce(into: [:]) { phrases, key in
            let (phrase, form) = split(key)
            phrases[phrase, default: []].formUnion(form.map { [$0] } ?? [])
        }
    }

    @Test(arguments: Language.allCases) func everyLanguageHasEveryPhraseInEachFormItsRulesUse(language: Language) throws {
        let english = Self.phrases(.english)
        let these = Self.phrases(language)
        #expect(!english.isEmpty)
        #expect(Set(these.keys) == Set(english.keys), "\(language.tag)")
        let forms = try #require(Self.pluralForms[language])
        for (phrase, hasForms) in these where !hasForms.isEmpty || !(english[phrase] ?? []).isEmpty {
            #expect(hasForms == forms, "\(language.tag): \(phrase)")
        }
    }

    @Test(arguments: Language.allCases) func eachCatalogIsValidJSONWithItsKeysSorted(language: Language) throws {
        let text = String(decoding: PageWords.catalog(language), as: UTF8.self)
        let keys = text.split(separator: "\n").compactMap { line -> String? in
            guard let open = line.firstIndex(of: "\""), let close = line[line.index(after: open)...].firstIndex(of: "\"") else {
                return nil
            }
            return String(line[line.index(after: open)..<close])
        }
        #expect(keys == keys.sorted(), "\(language.tag): keep the keys sorted, so additions rarely collide")
        #expect(keys.count == PageWords.for(language).keys.count, "\(language.tag): a duplicate key, or a phrase over two lines")
    }

    /// Every `words["…"]`, `words.counted("…"` in the page's Swift and every `t('…'`,
    /// `tc('…'` in `trips.js` names a phrase the catalog has.
    @Test func everyKeyTheCodeUsesIsInTheCatalog() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../../Sources/TripsServer")
        let swiftFiles = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        var used: [(key: String, counted: Bool, file: String)] = []
        for file in swiftFiles {
            let text = try String(contentsOf: sources.appending(path: file), encoding: .utf8)
            used += text.matches(of: #/words\["([a-zA-Z0-9.]+)"/#).map { (String($0.1), false, file) }
            used += text.matches(of: #/words\.counted\("([a-zA-Z0-9.]+)"/#).map { (String($0.1), true, file) }
        }
        let script = String(decoding: PageAsset.script.bytes, as: UTF8.self)
        used += script.matches(of: #/\bt\('([a-zA-Z0-9.]+)'/#).map { (String($0.1), false, "trips.js") }
        used += script.matches(of: #/\btc\('([a-zA-Z0-9.]+)'/#).map { (String($0.1), true, "trips.js") }
        #expect(!used.isEmpty)
        let english = Self.phrases(.english)
        for use in used {
            let forms = english[use.key]
            #expect(forms != nil, "\(use.file) uses \(use.key), which the catalog lacks")
            #expect(forms.map { $0.isEmpty != use.counted } ?? true, "\(use.file): \(use.key) is \(use.counted ? "" : "not ")counted there")
        }
    }

    @Test func aCountedPhraseTakesTheFormTheLanguagesRulesPick() {
        let polish = PageWords.for(.polish)
        #expect(polish.counted("list.count", 1) == "1 podróż")
        #expect(polish.counted("list.count", 2) == "2 podróże")
        #expect(polish.counted("list.count", 5) == "5 podróży")
        #expect(polish.counted("list.count", 22) == "22 podróże")
        #expect(polish.counted("list.count", 12) == "12 podróży")
        #expect(PageWords.for(.english).counted("list.count", 1) == "1 trip")
        #expect(PageWords.for(.english).counted("list.count", 1_000) == "1,000 trips")
        #expect(PageWords.for(.french).counted("list.count", 0) == "0 voyage")
    }

    /// Every occurrence is filled in, wherever it stands, and the values are not read again.
    @Test(arguments: [
        ("{city}", "Zürich", "Zürich"), ("Actions for {city}", "Kyoto", "Actions for Kyoto"),
        ("{city} and {city}.", "Łódź", "Łódź and Łódź."), ("no placeholder", "x", "no placeholder"), ("{cit", "x", "{cit"),
        ("「{city}」の操作", "京都", "「京都」の操作"), ("{city}{city}", "{city}", "{city}{city}"), ("", "x", ""),
    ])
    func aPlaceholderIsReplacedEverywhereItStands(phrase: String, city: String, filled: String) {
        #expect(PageWords.replacing("{city}", with: city, in: phrase) == filled)
        #expect(PageWords.replacing("{city}", with: city, in: phrase) == phrase.replacingOccurrences(of: "{city}", with: city))
    }

    @Test func aPlaceholderTakesItsValueAndAnUnknownKeyShowsItself() {
        let english = PageWords.for(.english)
        #expect(english["row.actions", ["city": "Vancouver"]] == "Actions for Vancouver")
        #expect(english["no.such.key"] == "no.such.key")
    }

    /// Exactly the digits stored, with the language's separators: never rounded, never padded.
    @Test(arguments: [
        ("1499.5", Language.english, "1,499.5"), ("1499.5", .french, "1\u{202F}499,5"), ("1499.5", .german, "1.499,5"),
        ("1499.5", .spanish, "1499,5"), ("1499.5", .brazilianPortuguese, "1.499,5"), ("1499.5", .japanese, "1,499.5"),
        ("1499.5", .polish, "1499,5"), ("12345.678", .polish, "12\u{00A0}345,678"), ("12345", .spanish, "12.345"),
        ("2450", .english, "2,450"), ("0", .french, "0"), ("999.99", .german, "999,99"), ("1234567", .english, "1,234,567"),
        ("0.000000000000000000001", .english, "0.000000000000000000001"), ("-1234.5", .french, "-1\u{202F}234,5"),
        ("1234567890123456789012", .german, "1.234.567.890.123.456.789.012"), ("1000.10", .polish, "1000,1"),
        ("12345678.9", .japanese, "12,345,678.9"), ("1e3", .spanish, "1000"), ("1e4", .spanish, "10.000"),
    ])
    func aPriceKeepsItsDigits(stored: String, language: Language, shown: String) throws {
        let decimal = try #require(Decimal(string: stored, locale: Locale(identifier: "en_US_POSIX")))
        #expect(PageWords.for(language).price(Price(decimal)) == shown)
        #expect(PageWords.for(language).price(try Price(literal: stored.utf8)) == shown)
    }
}
