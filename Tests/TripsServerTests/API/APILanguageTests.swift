import Foundation
import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// Trip 2 of the samples, as each language writes it (checked by reading, not only by running).
private let vancouver: [String: String] = [
    "en": "Vancouver, Canada: 3 nights from March 5, 2027\n",
    "fr": "Vancouver, Canada\u{00A0}: 3 nuits à partir du 5 mars 2027\n",
    "de": "Vancouver, Canada: 3 Nächte ab dem 5. März 2027\n",
    "es": "Vancouver, Canada: 3 noches desde el 5 de marzo de 2027\n",
    "pt-BR": "Vancouver, Canada: 3 noites a partir de 5 de março de 2027\n",
    "ja": "Vancouver, Canada：2027年3月5日から3泊\n",
    "pl": "Vancouver, Canada: 3 noce od 5 marca 2027\n",
]

/// The sample list as text, as it was before there were languages.
private let englishList = """
    Seattle, United States: 4 nights from January 12, 2027
    Vancouver, Canada: 3 nights from March 5, 2027
    Atacama, Chile: 6 nights from April 20, 2027
    New York, United States: 5 nights from June 14, 2027
    Kyoto, Japan: 7 nights from October 2, 2027
    Zürich, Switzerland: 1 night from December 11, 2027

    """

/// A text request in a language (nil: no `Accept-Language`).
private func text(_ language: String? = nil, _ more: [String: String] = [:]) -> [String: String] {
    var headers = more.merging(["Accept": "text/plain"]) { mine, _ in mine }
    if let language { headers["Accept-Language"] = language }
    return headers
}

/// A text body to import, with its `Content-Language` if any.
private func textBody(contentLanguage: String? = nil, _ more: [String: String] = [:]) -> [String: String] {
    var headers = more
    headers["Content-Type"] = "text/plain; charset=utf-8"
    if let contentLanguage { headers["Content-Language"] = contentLanguage }
    return headers
}

private let bothVaries = "Accept, Accept-Language, Accept-Encoding"

/// `Accept-Language` picks the language of every answer in words (text and the page), with
/// `Content-Language`, `Vary` and a strong tag per language; text bodies are read in their
/// `Content-Language`, or in whichever language each line is in.
@Suite struct APILanguageTests {
    /// The cache files a response under one slot per representation and language choice:
    /// `LanguageChoice.count`, a literal, must stay every language plus "none stated".
    @Test func everyLanguageChoiceHasASlotOfItsOwn() {
        #expect(LanguageChoice.count == Language.allCases.count + 1)
        let slots = [LanguageChoice.slot(position: 0, nil)] + Language.allCases.map { LanguageChoice.slot(position: 0, $0) }
        #expect(Set(slots) == Set(0..<LanguageChoice.count))
        #expect(LanguageChoice.slot(position: 1, nil) == LanguageChoice.count)
    }

    // MARK: Sentences in the client's language

    @Test(
        arguments: TestStore.all,
        [
            ("en", #""trip-2-v0-plain""#), ("fr", #""trip-2-v0-plain-fr""#), ("de", #""trip-2-v0-plain-de""#),
            ("es", #""trip-2-v0-plain-es""#), ("pt-BR", #""trip-2-v0-plain-pt-BR""#), ("ja", #""trip-2-v0-plain-ja""#),
            ("pl", #""trip-2-v0-plain-pl""#),
        ])
    func aTripIsASentenceInTheClientsLanguage(store: TestStore, example: (language: String, etag: String)) async throws {
        let (language, etag) = example
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request("GET", "/trips/2", headers: text(language))
        #expect(response.status == 200)
        #expect(response.field("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.text == vancouver[language])
        #expect(response.field("Content-Language") == language)
        #expect(response.field("Vary") == bothVaries)
        #expect(response.field("ETag") == etag)
    }

    @Test(arguments: TestStore.all) func frenchSetsANoBreakSpaceBeforeItsColon(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let french = try await api.request("GET", "/trips/2", headers: text("fr"))
        #expect(french.text == "Vancouver, Canada\u{00A0}: 3 nuits à partir du 5 mars 2027\n")
        #expect(french.field("Content-Language") == "fr")
        #expect(french.field("Vary") == "Accept, Accept-Language, Accept-Encoding")
        #expect(french.field("ETag") == #""trip-2-v0-plain-fr""#)
    }

    @Test(arguments: TestStore.all) func withoutAcceptLanguageTextIsAsBeforeLanguages(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        // Fill the other cache slots first: the answer without a language must not be one of them.
        for language in ["fr", "en", "ja"] {
            let trip = try await api.request("GET", "/trips/2", headers: text(language))
            let list = try await api.request("GET", "/trips", headers: text(language))
            #expect(trip.field("Content-Language") == language && list.field("Content-Language") == language)
        }
        let trip = try await api.request("GET", "/trips/2", headers: text())
        #expect(trip.status == 200)
        #expect(trip.text == "Vancouver, Canada: 3 nights from March 5, 2027\n")
        #expect(trip.field("Content-Language") == nil)
        #expect(trip.field("Vary") == "Accept, Accept-Encoding")
        #expect(trip.field("ETag") == #""trip-2-v0-plain""#)
        let list = try await api.request("GET", "/trips", headers: text())
        #expect(list.status == 200)
        #expect(list.text == englishList)
        #expect(list.field("Content-Language") == nil)
        #expect(list.field("Vary") == "Accept, Accept-Encoding")
        #expect(list.field("ETag") == #""list-r0-plain""#)
    }

    // MARK: Choosing the language

    @Test(
        arguments: TestStore.all,
        [
            ("fr-CA", "fr"),
            ("pt", "pt-BR"),
            ("de;q=0.5, ja;q=0.8", "ja"),
            ("it, de;q=0.1", "de"),
            ("it", "en"),
            ("*", "en"),
            ("fr;q=0, *", "en"),
            ("fr;q=2, de", "de"),
            (";;;", nil),
        ])
    func acceptLanguageIsLookedUpByWeight(store: TestStore, example: (field: String, chosen: String?)) async throws {
        let (field, chosen) = example
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request("GET", "/trips/2", headers: text(field))
        #expect(response.status == 200)
        #expect(response.text == vancouver[chosen ?? "en"], "Accept-Language: \(field)")
        #expect(response.field("Content-Language") == chosen, "Accept-Language: \(field)")
        #expect(response.field("Vary") == (chosen == nil ? "Accept, Accept-Encoding" : bothVaries), "Accept-Language: \(field)")
        let suffix = chosen.map { $0 == "en" ? "" : "-\($0)" } ?? ""
        #expect(response.field("ETag") == "\"trip-2-v0-plain\(suffix)\"", "Accept-Language: \(field)")
    }

    /// A refused regional variant refuses only that variant: the client asks for the
    /// language itself (or another region of it) at full weight.
    @Test(
        arguments: TestStore.all,
        [("pt-PT;q=0, pt-BR", "pt-BR"), ("pt-PT;q=0, pt", "pt-BR"), ("fr-CA;q=0, fr", "fr"), ("de-AT;q=0, de", "de")])
    func aRefusedRegionDoesNotRefuseTheLanguage(store: TestStore, example: (field: String, chosen: String)) async throws {
        let (field, chosen) = example
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request("GET", "/trips/2", headers: text(field))
        #expect(response.field("Content-Language") == chosen, "Accept-Language: \(field)")
        #expect(response.text == vancouver[chosen], "Accept-Language: \(field)")
    }

    @Test(arguments: TestStore.all) func jsonHasNoWordsSoNoLanguage(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let plain = try await api.request("GET", "/trips/2")
        for path in ["/trips/2", "/trips", "/favorites"] {
            for accept in [nil, "application/json"] {
                var headers = ["Accept-Language": "fr"]
                if let accept { headers["Accept"] = accept }
                let json = try await api.request("GET", path, headers: headers)
                #expect(json.status == 200, "\(path)")
                #expect(json.field("Content-Type") == "application/json", "\(path)")
                #expect(json.field("Content-Language") == nil, "\(path)")
                #expect(json.field("Vary") == "Accept, Accept-Encoding", "\(path)")
                #expect(json.field("ETag")?.hasSuffix(#"-json""#) == true, "\(path)")
            }
        }
        let french = try await api.request("GET", "/trips/2", headers: ["Accept-Language": "fr"])
        #expect(french.body == plain.body)
        #expect(french.field("ETag") == #""trip-2-v0-json""#)
        // The same request for text is in French: only the representation without words has no language.
        let words = try await api.request("GET", "/trips/2", headers: text("fr"))
        #expect(words.field("Content-Language") == "fr")
    }

    // MARK: Validators

    @Test(arguments: TestStore.all) func eachLanguageHasItsOwnTag(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        for path in ["/trips/2", "/trips"] {
            let french = try await api.request("GET", path, headers: text("fr"))
            let tag = try #require(french.field("ETag"))
            #expect(tag.hasSuffix(#"-plain-fr""#))
            let unchanged = try await api.request("GET", path, headers: text("fr", ["If-None-Match": tag]))
            #expect(unchanged.status == 304, "\(path)")
            #expect(unchanged.body.isEmpty)
            #expect(unchanged.field("ETag") == tag)
            #expect(unchanged.field("Vary") == bothVaries)
            #expect(unchanged.field("Content-Language") == nil)  // a 304 repeats no representation metadata
            let german = try await api.request("GET", path, headers: text("de", ["If-None-Match": tag]))
            #expect(german.status == 200, "\(path)")
            #expect(german.field("ETag") == tag.replacingOccurrences(of: "-fr\"", with: "-de\""))
            #expect(german.text.contains("Nächte ab dem"))
            let unstated = try await api.request("GET", path, headers: text(nil, ["If-None-Match": tag]))
            #expect(unstated.status == 200, "\(path)")
            #expect(unstated.text.contains("nights from"))
        }
    }

    @Test(arguments: TestStore.all) func ifMatchTakesAFrenchTagAndRefusesAStaleOne(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let merge = ["Content-Type": "application/merge-patch+json"]
        let textTag = try #require(try await api.request("GET", "/trips/2", headers: text("fr")).field("ETag"))
        #expect(textTag == #""trip-2-v0-plain-fr""#)
        let patched = try await api.request(
            "PATCH", "/trips/2", headers: merge.merging(["If-Match": textTag]) { $1 }, body: #"{"nights": 4}"#)
        #expect(patched.status == 200)
        #expect(api.store.list[2]?.nights == 4)
        let stale = try await api.request(
            "PATCH", "/trips/2", headers: merge.merging(["If-Match": textTag]) { $1 }, body: #"{"nights": 9}"#)
        #expect(stale.status == 412)
        #expect(api.store.list[2]?.nights == 4)

        let pageHeaders = ["Accept": "text/html", "Accept-Language": "fr"]
        let pageTag = try #require(try await api.request("GET", "/trips/2", headers: pageHeaders).field("ETag"))
        #expect(pageTag.hasSuffix(#"-html-fr""#))
        let fromPage = try await api.request(
            "PATCH", "/trips/2", headers: merge.merging(["If-Match": pageTag]) { $1 }, body: #"{"nights": 5}"#)
        #expect(fromPage.status == 200)
        #expect(api.store.list[2]?.nights == 5)
        let stalePage = try await api.request(
            "PATCH", "/trips/2", headers: merge.merging(["If-Match": pageTag]) { $1 }, body: #"{"nights": 9}"#)
        #expect(stalePage.status == 412)
        #expect(api.store.list[2]?.nights == 5)
    }

    // MARK: Lists, favorites and drops

    @Test(arguments: TestStore.all) func theListAndTheFavoritesUsePolishPlurals(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let list = try await api.request("GET", "/trips", headers: text("pl"))
        #expect(list.status == 200)
        #expect(
            list.text == """
                Seattle, United States: 4 noce od 12 stycznia 2027
                Vancouver, Canada: 3 noce od 5 marca 2027
                Atacama, Chile: 6 nocy od 20 kwietnia 2027
                New York, United States: 5 nocy od 14 czerwca 2027
                Kyoto, Japan: 7 nocy od 2 października 2027
                Zürich, Switzerland: 1 noc od 11 grudnia 2027

                """)
        #expect(list.field("Content-Language") == "pl")
        #expect(list.field("ETag") == #""list-r0-plain-pl""#)
        let favorites = try await api.request("GET", "/favorites", headers: text("pl"))
        #expect(favorites.status == 200)
        #expect(favorites.text == "Seattle, United States: 4 noce od 12 stycznia 2027\nKyoto, Japan: 7 nocy od 2 października 2027\n")
        #expect(favorites.field("Content-Language") == "pl")
        #expect(favorites.field("Vary") == bothVaries)
    }

    @Test(arguments: TestStore.all, [(2, "2 noce"), (12, "12 nocy"), (14, "14 nocy"), (21, "21 nocy"), (22, "22 noce"), (25, "25 nocy")])
    func polishPluralsFollowTheLastDigits(store: TestStore, example: (nights: Int, words: String)) async throws {
        let (nights, words) = example
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let draft = #"{"city":"Kraków","country":"Poland","nights":\#(nights),"price":1,"start":"2027-05-03"}"#
        #expect(try await api.json("POST", "/trips", draft).status == 201)
        let view = try await api.request("GET", "/trips?country=Poland", headers: text("pl"))
        #expect(view.text == "Kraków, Poland: \(words) od 3 maja 2027\n")
    }

    @Test(arguments: TestStore.all) func aFavoriteDropInGermanSaysSoInGerman(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let drop = try await api.request(
            "POST", "/favorites", headers: textBody(text("de")), body: "Vancouver")
        #expect(drop.status == 200)
        #expect(drop.field("Content-Language") == "de")
        #expect(drop.field("Vary") == bothVaries)
        #expect(
            drop.text == """
                Neue Favoriten: Vancouver.
                Seattle, United States: 4 Nächte ab dem 12. Januar 2027
                Vancouver, Canada: 3 Nächte ab dem 5. März 2027
                Kyoto, Japan: 7 Nächte ab dem 2. Oktober 2027

                """)
        let again = try await api.request("POST", "/favorites", headers: textBody(text("de")), body: "Vancouver")
        #expect(again.status == 200)
        #expect(again.text.hasPrefix("Keine neuen Favoriten.\nSeattle, United States: 4 Nächte ab dem 12. Januar 2027\n"))
    }

    @Test(arguments: TestStore.all) func aFavoriteDropInGermanHasTheGermanTag(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let drop = try await api.request("POST", "/favorites", headers: textBody(text("de")), body: "Vancouver")
        #expect(drop.status == 200)
        #expect(drop.field("ETag") == #""list-r1-plain-de""#)
    }

    // MARK: The page

    @Test(arguments: TestStore.all) func thePageIsInTheClientsLanguage(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let japanese = ["Accept": "text/html", "Accept-Language": "ja"]
        for (path, tag) in [("/trips", #""list-r0-html-ja""#), ("/trips/2", #""trip-2-r0-html-ja""#)] {
            let page = try await api.request("GET", path, headers: japanese)
            #expect(page.status == 200, "\(path)")
            #expect(page.field("Content-Type") == "text/html; charset=utf-8")
            #expect(page.field("Content-Language") == "ja", "\(path)")
            #expect(page.field("Vary") == bothVaries, "\(path)")
            #expect(page.field("ETag") == tag)
            #expect(page.text.contains("<html lang=\"ja\">"), "\(path)")
            #expect(page.text.contains("<p class=\"sentence\">Vancouver, Canada：2027年3月5日から3泊</p>"), "\(path)")
            #expect(!page.text.contains("3 nights from March 5, 2027"), "\(path)")
        }
        let list = try await api.request("GET", "/trips", headers: japanese)
        #expect(list.text.contains("Zürich, Switzerland：2027年12月11日から1泊"))
        // After the Japanese page (and its cached rows), a page without a language is English.
        for path in ["/trips", "/trips/2"] {
            let page = try await api.request("GET", path, headers: ["Accept": "text/html"])
            #expect(page.status == 200, "\(path)")
            #expect(page.field("Content-Language") == nil, "\(path)")
            #expect(page.field("Vary") == "Accept, Accept-Encoding", "\(path)")
            #expect(page.text.contains("<html lang=\"en\">"), "\(path)")
            #expect(page.text.contains("<p class=\"sentence\">Vancouver, Canada: 3 nights from March 5, 2027</p>"), "\(path)")
            #expect(!page.text.contains("泊"), "\(path)")
        }
    }

    // MARK: Reading text in a language

    @Test(arguments: TestStore.all) func aFrenchSentenceIsImportedWithoutContentLanguage(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let created = try await api.request(
            "POST", "/trips", headers: textBody(), body: "Paris, France\u{00A0}: 2 nuits à partir du 14 juillet 2027")
        #expect(created.status == 201)
        #expect(created.field("Location") == "/trips/7")
        #expect(try created.member("city") == .string("Paris"))
        #expect(try created.member("country") == .string("France"))
        #expect(try created.member("nights") == .number("2"))
        #expect(try created.member("start") == .string("2027-07-14T00:00:00Z"))
        let trip = try #require(api.store.list[7])
        #expect((trip.city, trip.country, trip.nights) == ("Paris", "France", 2))
        #expect(trip.start == TripDate.parse("2027-07-14"))
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test(arguments: TestStore.all) func aSentenceIsReadOnlyInItsContentLanguage(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let before = api.store.list
        let sentence = "Paris, France : 2 nuits à partir du 14 juillet 2027"
        let refused = try await api.request("POST", "/trips", headers: textBody(contentLanguage: "de"), body: sentence)
        #expect(refused.status == 422)
        #expect(refused.field("Content-Type") == "application/problem+json")
        #expect(api.store.list == before)
        #expect(api.order == [1, 2, 3, 4, 5, 6])
        let accepted = try await api.request("POST", "/trips", headers: textBody(contentLanguage: "fr"), body: sentence)
        #expect(accepted.status == 201)
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7])
        #expect(api.store.list[7]?.start == TripDate.parse("2027-07-14"))
    }

    @Test(arguments: TestStore.all) func contentLanguageIsLookedUpToo(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let created = try await api.request(
            "POST", "/trips", headers: textBody(contentLanguage: "fr-CA"), body: "Québec, Canada : 1 nuit à partir du 24 juin 2027")
        #expect(created.status == 201)
        let trip = try #require(api.store.list[7])
        #expect((trip.city, trip.country, trip.nights) == ("Québec", "Canada", 1))
        #expect(trip.start == TripDate.parse("2027-06-24"))
    }

    @Test(arguments: TestStore.all) func eachLineIsReadInItsOwnLanguage(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let lines = """
            Lisbon, Portugal: 4 nights from May 1, 2027
            Tokyo, Japan：2027年4月1日から2泊
            Kraków, Poland: 5 nocy od 3 maja 2027
            """
        let created = try await api.request("POST", "/trips", headers: textBody(), body: lines)
        #expect(created.status == 201)
        #expect(try created.ids == [7, 8, 9])
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        let added = [7, 8, 9].compactMap { api.store.list[$0] }
        #expect(added.map(\.city) == ["Lisbon", "Tokyo", "Kraków"])
        #expect(added.map(\.country) == ["Portugal", "Japan", "Poland"])
        #expect(added.map(\.nights) == [4, 2, 5])
        #expect(added.map(\.start) == ["2027-05-01", "2027-04-01", "2027-05-03"].compactMap { TripDate.parse($0) })
        // Read back in Japanese, every line is the same trip in one language.
        let japanese = try await api.request("GET", "/trips?country=Japan", headers: text("ja"))
        #expect(japanese.text == "Kyoto, Japan：2027年10月2日から7泊\nTokyo, Japan：2027年4月1日から2泊\n")
    }

    @Test(arguments: TestStore.all) func aSpanishSentenceDropsItsTripOnTheFavorites(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        #expect(api.store.list[2]?.isFavorite == false)
        let drop = try await api.request(
            "POST", "/favorites", headers: textBody(), body: "Vancouver, Canada: 3 noches desde el 5 de marzo de 2027")
        #expect(drop.status == 200)
        #expect(try drop.member("added") == .array([.number("2")]))
        #expect(api.store.list[2]?.isFavorite == true)
        #expect(try await api.request("GET", "/favorites").ids == [1, 2, 5])
    }
}
