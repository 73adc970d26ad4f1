import Foundation
import Testing
import TripsDomain
@testable import TripsServer

/// What a browser in Poland sends on a page load.
private let polishBrowser = [
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5",
]

/// The page in the client's language, over a socket: its own words come from the catalog
/// (no English phrase of it in a Polish page), `lang` is set once, on `<html>`, and the
/// example sentence is one the sentence form reads back in every language.
@Suite struct APIPageWordsTests {
    @Test func thePolishListPageHasNoEnglishPhraseOfTheCatalog() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let photo = try await api.request(
            "PUT", "/trips/3/photo", headers: ["Content-Type": "image/png"], binaryBody: try PhotoFixture.bytes("plain.png"))
        #expect(photo.status == 200)
        // The whole list (rows, the strip, the reorder hint), an empty view and a paged one.
        for target in ["/trips", "/trips?q=nowhere&sort=-price", "/trips?limit=2"] {
            let page = try await api.request("GET", target, headers: polishBrowser)
            #expect(page.status == 200)
            #expect(page.field("Content-Language") == "pl")
            let html = page.text
            let shown = shownTexts(html)
            #expect(shown.contains("Podróże"), "\(target)")
            #expect(shown.contains("Wszystkie"), "\(target)")
            for (key, phrase) in englishOnlyPhrases() {
                for text in shown where phrase.matches(text) {
                    Issue.record("\(target): \"\(text)\" is English (\(key))")
                }
            }
        }
    }

    @Test(arguments: ["pl", "ja", "en"]) func onlyTheDocumentNamesALanguage(tag: String) async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        _ = try await api.request(
            "PUT", "/trips/3/photo", headers: ["Content-Type": "image/png"], binaryBody: try PhotoFixture.bytes("plain.png"))
        let page = try await api.request("GET", "/trips", headers: polishBrowser.merging(["Accept-Language": tag]) { $1 })
        let html = page.text
        let langs = html.matches(of: #/<([a-z0-9]+)[^>]*\slang="([^"]*)"/#).map { "\($0.output.1) lang=\($0.output.2)" }
        #expect(langs == ["html lang=\(tag)"])
    }

    @Test func aPolishPageCountsItsFavoritesAndNamesItsSortsInPolish() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let html = try await api.request("GET", "/trips?filter=favorites", headers: polishBrowser).text
        #expect(html.contains(#"<nav class="chips" aria-label="Filtry">"#))
        #expect(html.contains(#">Ulubione <span id="favorites-count" class="badge">2</span></a>"#))
        #expect(html.contains(#"<nav class="sort" aria-label="Sortowanie">Sortuj: <a href="/trips?filter=favorites" aria-current="page">"#))
        #expect(html.contains(#"aria-current="page">Zapisana kolejność</a> <a href="/trips?filter=favorites&amp;sort=start">Według daty"#))
        #expect(html.contains(#"<p class="hint">Przy filtrze, wyszukiwaniu lub sortowaniu nie można zmieniać kolejności."#))
        #expect(html.contains(#"<h2 id="confirm-title">Usunąć podróż?</h2>"#))
        #expect(html.contains(#"<p id="confirm-text">Tej operacji nie można cofnąć.</p>"#))
        #expect(html.contains(#"<progress id="upload" class="upload" max="1" value="0" aria-label="Wysyłanie zdjęcia" hidden>"#))
        // The hidden sign-in panel and "Sign out" (PageDocument.open) are Polish too.
        #expect(html.contains(#"<h2 id="sign-in-title">Logowanie</h2>"#))
        #expect(html.contains(#"<button type="submit">Wyloguj</button>"#))
    }

    /// The sentence form's example is a trip's sentence in the page's language, and the form
    /// reads it back as that trip.
    @Test(arguments: Language.allCases) func theExampleSentenceIsOneTheFormReads(language: Language) throws {
        var html = HTMLWriter()
        TripForms.render(PageWords.for(language), into: &html)
        let page = String(decoding: html.bytes, as: UTF8.self)
        let placeholder = try #require(page.firstMatch(of: #/<input name="sentence" placeholder="([^"]*)"/#)?.output.1)
        let sentence = String(placeholder).replacing("&#39;", with: "'")
        let words = PageWords.for(language)
        #expect(sentence.hasPrefix("\(words["form.sentence.city"]), \(words["form.sentence.country"])"))
        let draft = try TripDraft(sentence: sentence)
        #expect(draft.nights == 4)
        #expect(draft.start == TripDate.parse("2027-05-01"))
        #expect(try TripDraft(sentence: sentence, language: language).sentence(in: language) == sentence)
    }

    @Test func thePolishExampleIsWrittenAsPolishWritesIt() {
        var html = HTMLWriter()
        TripForms.render(PageWords.for(.polish), into: &html)
        #expect(String(decoding: html.bytes, as: UTF8.self).contains(#"placeholder="Lizbona, Portugalia: 4 noce od 1 maja 2027""#))
    }
}

// MARK: Reading the page's words

/// A catalog phrase as it can show in a page: its placeholders stand for any text.
private struct Phrase {
    let pattern: Regex<Substring>
    /// One word is only English as a whole text ("Add" is in "Address"); a longer phrase is
    /// English anywhere in one.
    let isOneWord: Bool

    init(_ phrase: String) throws {
        let parts = phrase.split(separator: #/\{[a-zA-Z]+\}/#, omittingEmptySubsequences: false)
        pattern = try Regex(parts.map { NSRegularExpression.escapedPattern(for: String($0)) }.joined(separator: ".+?"))
        isOneWord = !phrase.replacing(#/\{[a-zA-Z]+\}/#, with: "").trimmingCharacters(in: .whitespaces).contains(" ")
    }

    func matches(_ text: String) -> Bool {
        isOneWord ? text.wholeMatch(of: pattern) != nil : text.contains(pattern)
    }
}

/// The English phrases of the catalog that Polish says otherwise, by key.
private func englishOnlyPhrases() -> [(key: String, phrase: Phrase)] {
    let (english, polish) = (PageWords.for(.english), PageWords.for(.polish))
    return english.keys.sorted().compactMap { key in
        guard english[key] != polish[key], let phrase = try? Phrase(english[key]) else { return nil }
        return (key, phrase)
    }
}

/// Every text a reader meets: text between tags, and the attributes read out or shown
/// (labels, placeholders, image texts, titles), entities decoded, trimmed.
private func shownTexts(_ html: String) -> [String] {
    let between = html.matches(of: #/>([^<]+)</#).map { String($0.output.1) }
    let attributes = html.matches(of: #/\s(?:aria-label|placeholder|alt|title)="([^"]*)"/#).map { String($0.output.1) }
    return (between + attributes).map { text in
        text.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"").replacing("&#39;", with: "'")
            .replacing("&amp;", with: "&").trimmingCharacters(in: .whitespacesAndNewlines)
    }.filter { !$0.isEmpty }
}
