import Foundation
import Testing
import TripsDomain

@testable import TripsServer

/// What a browser sends on a page load, in a language.
private func browser(_ language: String? = nil) -> [String: String] {
    var headers = ["Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"]
    if let language { headers["Accept-Language"] = language }
    return headers
}

/// The trip page as the lesson's `TripDetail`, over a real socket: "Next: <city>" to the trip
/// that starts soonest after it (same-day trips, ties and none), the delete confirmation in
/// the client's language, the fields (an exact price, a long date) and the validators.
@Suite struct TripPageTests {
    /// Where the page's "Next" goes and what it says, or nil when it has none.
    private func next(_ api: APIServer, of id: Int, language: String? = nil) async throws -> (id: Int, text: String)? {
        let page = try await api.request("GET", "/trips/\(id)", headers: browser(language))
        #expect(page.status == 200)
        guard let match = page.text.firstMatch(of: #/<p class="next-trip"><a href="/trips/([0-9]+)">([^<]*)<span/#) else {
            #expect(!page.text.contains("next-trip"))
            return nil
        }
        return (Int(match.output.1) ?? 0, String(match.output.2))
    }

    private func add(_ api: APIServer, _ city: String, starting start: String) async throws {
        let body = #"{"city":"\#(city)","country":"Portugal","nights":2,"price":100,"start":"\#(start)"}"#
        #expect(try await api.json("POST", "/trips", body).status == 201)
    }

    @Test func nextIsTheTripThatStartsSoonestAfterNeverOneOnTheSameInstant() async throws {
        let api = try await APIServer(samples: false, mode: .live)
        defer { api.stop() }
        try await add(api, "Lisbon", starting: "2027-03-05")  // 1
        try await add(api, "Porto", starting: "2027-03-05")  // 2: the same day as Lisbon
        try await add(api, "Faro", starting: "2027-05-01")  // 3
        try await add(api, "Braga", starting: "2027-05-01")  // 4: the same day as Faro
        try await add(api, "Coimbra", starting: "2027-04-01")  // 5
        #expect(try await next(api, of: 1)?.id == 5)
        #expect(try await next(api, of: 2)?.text == "Next: Coimbra")
        // Faro and Braga start together: the first in stored order is next.
        #expect(try await next(api, of: 5)?.id == 3)
        #expect(try await next(api, of: 3) == nil)
        #expect(try await next(api, of: 4) == nil)
        let reorder = #"{"sources":[4],"destination":{"before":3}}"#
        #expect(try await api.json("PATCH", "/trips", reorder).status == 200)
        #expect(try await next(api, of: 5)?.id == 4)
        #expect(try await next(api, of: 1, language: "ja")?.text == "次：Coimbra")
    }

    @Test func anotherTripsChangeMakesThePageNewSoNextIsNeverStale() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let before = try await api.request("GET", "/trips/2", headers: browser())
        let tag = try #require(before.field("ETag"))
        #expect(tag == #""trip-2-r0-html""#)
        #expect(try await next(api, of: 2)?.text == "Next: Atacama")
        var conditional = browser()
        conditional["If-None-Match"] = tag
        #expect(try await api.request("GET", "/trips/2", headers: conditional).status == 304)
        let mergePatch = ["Content-Type": "application/merge-patch+json"]
        // The page's tag guards a change while the page is current (nothing changed since).
        let guarded = try await api.json(
            "PATCH", "/trips/2", #"{"notes":"By bike."}"#, headers: mergePatch.merging(["If-Match": tag]) { $1 })
        #expect(guarded.status == 200)
        let stalePage = try await api.json(
            "PATCH", "/trips/2", #"{"notes":"On foot."}"#, headers: mergePatch.merging(["If-Match": tag]) { $1 })
        #expect(stalePage.status == 412)
        conditional["If-None-Match"] = #""trip-2-r1-html""#
        // Kyoto moves to the day after Vancouver: Vancouver itself did not change.
        #expect(try await api.json("PATCH", "/trips/5", #"{"start":"2027-03-06"}"#, headers: mergePatch).status == 200)
        let after = try await api.request("GET", "/trips/2", headers: conditional)
        #expect(after.status == 200)
        #expect(after.field("ETag") == #""trip-2-r2-html""#)
        #expect(try await next(api, of: 2)?.id == 5)
        // The card carries the trip's own tag, which guards a change of the trip.
        let cardTag = try #require(
            after.text.firstMatch(of: #/<article class="trip-card trip" draggable="true" data-id="2" data-etag='"([^"]+)"'/#))
        let patch = try await api.json(
            "PATCH", "/trips/2", #"{"nights":4}"#, headers: mergePatch.merging(["If-Match": "\"\(cardTag.output.1)\""]) { $1 })
        #expect(patch.status == 200)
    }

    @Test func theLastTripHasNoNext() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        #expect(try await next(api, of: 6) == nil)
        #expect(try await next(api, of: 5)?.text == "Next: Zürich")
    }

    @Test func theDeleteConfirmationSaysItCannotBeUndoneInTheClientsLanguage() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let polish = try await api.request("GET", "/trips/2", headers: browser("pl"))
        #expect(polish.text.contains(#"<h2 id="detail-confirm-title">Usunąć Vancouver?</h2>"#))
        #expect(polish.text.contains(#"<p id="detail-confirm-text">Tej operacji nie można cofnąć.</p>"#))
        #expect(polish.text.contains(#"<button type="button" data-action="detail-confirm-delete">Usuń</button>"#))
        let english = try await api.request("GET", "/trips/2", headers: browser())
        #expect(english.text.contains(#"<p id="detail-confirm-text">This cannot be undone.</p>"#))
        #expect(english.text.contains(#"<a href="/trips"><span aria-hidden="true">← </span>All trips</a>"#))
    }

    @Test func theFieldsShowThePriceWithExactlyItsDigitsAndTheStartLong() async throws {
        let api = try await APIServer(samples: false, mode: .live)
        defer { api.stop() }
        let body = #"{"city":"Oslo","country":"Norway","nights":2,"price":1234567.5,"start":"2027-08-14","notes":"Fjord & <boat>"}"#
        #expect(try await api.json("POST", "/trips", body).status == 201)
        let french = try await api.request("GET", "/trips/1", headers: browser("fr"))
        #expect(french.text.contains("<dt>Prix</dt><dd>1\u{202F}234\u{202F}567,5</dd>"))
        #expect(french.text.contains("<dt>Départ</dt><dd>14 août 2027</dd>"))
        #expect(french.text.contains("<dt>Pays</dt><dd>Norway</dd><dt>Nuits</dt><dd>2</dd>"))
        #expect(french.text.contains("<dt>Favori</dt><dd>Non</dd><dt>Notes</dt><dd class=\"notes\">Fjord &amp; &lt;boat&gt;</dd>"))
        #expect(french.text.contains("<title>Oslo · Voyages</title>"))
        let english = try await api.request("GET", "/trips/1", headers: browser())
        #expect(english.text.contains("<dt>Price</dt><dd>1,234,567.5</dd>"))
        #expect(english.text.contains("<dt>Start</dt><dd>August 14, 2027</dd>"))
    }

    @Test func favoriteIsAPressedButtonWhileTheTripIsOne() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let seattle = try await api.request("GET", "/trips/1", headers: browser())
        #expect(seattle.text.contains(#"data-action="detail-favorite" aria-pressed="true""#))
        #expect(seattle.text.contains("<dt>Favorite</dt><dd>Yes</dd>"))
        let vancouver = try await api.request("GET", "/trips/2", headers: browser())
        #expect(vancouver.text.contains(#"data-action="detail-favorite" aria-pressed="false""#))
    }
}
