import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@Suite struct LanguageTests {
    /// CLDR's examples for each rule (https://www.unicode.org/cldr/charts/latest/supplemental/language_plural_rules.html).
    @Test(arguments: [
        (Language.english, [1: PluralCategory.one, 0: .other, 2: .other, 21: .other]),
        (.german, [1: .one, 0: .other, 2: .other, 101: .other]),
        (.french, [0: .one, 1: .one, 2: .other, 17: .other, 1_000_000: .many]),
        (.brazilianPortuguese, [0: .one, 1: .one, 2: .other, 1_000_000: .many]),
        (.spanish, [1: .one, 0: .other, 2: .other, 1_000_000: .many, 2_000_000: .many, 1_000_001: .other]),
        (.japanese, [0: .other, 1: .other, 2: .other]),
        (
            .polish,
            [
                1: .one, 2: .few, 3: .few, 4: .few, 22: .few, 24: .few, 102: .few, 0: .many, 5: .many, 11: .many, 12: .many,
                14: .many, 21: .many, 25: .many, 112: .many, 365: .many,
            ]
        ),
    ])
    func pluralCategoriesFollowCLDR(language: Language, expected: [Int: PluralCategory]) {
        for (n, category) in expected { #expect(language.pluralCategory(n) == category, "\(language) \(n)") }
    }

    @Test func polishNightsTakeTheirThreeForms() throws {
        let start = try #require(TripDate.parse("2027-03-05"))
        let stays = [1, 2, 5, 22].map { nights in
            TripDraft(city: "Kraków", country: "Polska", nights: nights, price: 0, start: start).sentence(in: .polish)
        }
        #expect(
            stays == [
                "Kraków, Polska: 1 noc od 5 marca 2027", "Kraków, Polska: 2 noce od 5 marca 2027",
                "Kraków, Polska: 5 nocy od 5 marca 2027", "Kraków, Polska: 22 noce od 5 marca 2027",
            ])
    }

    @Test(arguments: [
        ("fr", Language.french as Language?), ("fr-CA", .french), ("FR-ca", .french), ("pt", .brazilianPortuguese),
        ("pt-BR", .brazilianPortuguese), ("pt-br", .brazilianPortuguese), ("pt-PT", .brazilianPortuguese), ("ja-JP", .japanese),
        ("de-DE-x-private", .german), ("en-US", .english), ("pl", .polish), ("zh", nil), ("it-IT", nil), ("*", nil), ("", nil),
    ])
    func tagsAreLookedUp(tag: String, expected: Language?) {
        #expect(Language(lookingUp: tag) == expected)
    }

    /// Every sentence reads back, in its own language and in "whichever language it is in",
    /// to the same city, country, nights and start: for many generated trips per language,
    /// with every month, leap days, long stays and names with accents and commas.
    @Test(.tags(.slow), arguments: Language.allCases)
    func sentencesReadBackInEveryLanguage(language: Language) throws {
        var random = SplitMix64(seed: 0x7269_7073 &+ UInt64(language.index))
        let cities = ["Zürich", "São Paulo", "Kraków", "Saint-Jean, Québec", "Washington, D.C.", "東京", "Łódź", "Ærøskøbing", "Ñuñoa"]
        let countries = ["Switzerland", "Brasil", "Polska", "Canada", "España", "日本", "Česko", "Côte d’Ivoire", "Ελλάδα"]
        for round in 0..<400 {
            let year = round % 4 == 0 ? 1 + Int(random.next() % 9999) : 1970 + Int(random.next() % 200)
            let month = 1 + round % 12
            let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let day = month == 2 && isLeap && round % 5 == 0 ? 29 : 1 + Int(random.next() % 28)
            let start = try #require(TripDate.parse(String(format: "%04d-%02d-%02d", year, month, day)))
            let nights = round < 365 ? round + 1 : 1 + Int(random.next() % 365)
            let draft = TripDraft(
                city: cities[Int(random.next() % UInt64(cities.count))], country: countries[Int(random.next() % UInt64(countries.count))],
                nights: nights, price: 0, start: start)
            let sentence = draft.sentence(in: language)
            #expect(try TripDraft(sentence: sentence, language: language) == draft, "\(sentence)")
            #expect(try TripDraft(sentence: sentence) == draft, "\(sentence)")
        }
    }

    /// Days are proleptic Gregorian in every language (Foundation's own calendar turns
    /// Julian before October 15, 1582), and a two-digit year is that year, not this century's.
    @Test func everyYearIsTheGregorianYearWritten() throws {
        let oldDay = try #require(TripDate.parse("1582-10-10"))
        let early = TripDraft(city: "Roma", country: "Italia", nights: 2, price: 0, start: oldDay)
        #expect(early.sentence(in: .french) == "Roma, Italia\u{00A0}: 2 nuits à partir du 10 octobre 1582")
        let year99 = TripDraft(city: "Roma", country: "Italia", nights: 2, price: 0, start: try #require(TripDate.parse("0099-03-05")))
        #expect(year99.sentence(in: .japanese) == "Roma, Italia：99年3月5日から2泊")
        #expect(try TripDraft(sentence: year99.sentence(in: .german)) == year99)
    }

    @Test func aSentenceInOneLanguageIsNotReadAsAnother() {
        #expect(throws: TripsError.self) { try TripDraft(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027", language: .german) }
        #expect(throws: TripsError.self) {
            try TripDraft(sentence: "Lisbonne, Portugal : 4 nuits à partir du 1 mai 2027", language: .english)
        }
        #expect(throws: TripsError.self) { try TripDraft(sentence: "Lisbon, Portugal: 4 night from May 1, 2027") }  // the wrong plural
        #expect(throws: TripsError.self) { try TripDraft(sentence: "Kraków, Polska: 5 noce od 5 marca 2027", language: .polish) }
        #expect(throws: TripsError.self) { try TripDraft(sentence: "Lyon, France : 2 nuits à partir du 31 février 2027") }
    }

    @Test func readingForgivesLetterCaseAndFrenchSpacing() throws {
        let french = try TripDraft(sentence: "Lyon, France : 2 NUITS À PARTIR DU 5 mars 2027")
        #expect(french.city == "Lyon" && french.country == "France" && french.nights == 2)
        let plainSpace = try TripDraft(sentence: "Lyon, France : 2 nuits à partir du 5 mars 2027", language: .french)
        #expect(plainSpace == french)
        let japanese = try TripDraft(sentence: "京都, 日本: 2027年3月5日から2泊")  // an ASCII colon
        #expect(japanese.city == "京都" && japanese.nights == 2)
    }
}
