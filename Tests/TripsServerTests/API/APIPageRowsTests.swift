import Foundation
import Testing
import TripsDomain

@testable import TripsServer

/// What a browser asks for, in a language.
private func browser(_ language: String = "en") -> [String: String] {
    ["Accept": "text/html", "Accept-Language": language]
}

/// The list page's rows and summary, over a socket: a row shows its trip and one menu button,
/// the one menu holds the actions, and the summary counts the whole view in the page's words.
@Suite struct APIPageRowsTests {
    @Test func aRowShowsItsTripAndOneMenuButtonAndNoOtherButton() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let html = try await api.request("GET", "/trips", headers: browser()).text
        let rows = try rowsOf(html)
        #expect(rows.count == 6)
        for row in rows {
            let buttons = row.markup.matches(of: #/<button\b[^>]*>/#).map { String($0.output) }
            #expect(buttons.count == 1, "\(row.id): \(buttons)")
            let city = try #require(Trip.samples.first { $0.id == row.id }?.city)
            #expect(
                buttons.first
                    == #"<button type="button" class="menu-button" data-action="menu" aria-haspopup="menu" aria-expanded="false" aria-label="Actions for \#(city)">"#
            )
            #expect(row.markup.contains(#"<a class="city" href="/trips/\#(row.id)">"#))
            #expect(!row.markup.contains("lang="), "the page's words are in the page's language")
        }
        let vancouver = try #require(rows.first { $0.id == 2 }).markup
        #expect(vancouver.contains(#"<p class="sentence">Vancouver, Canada: 3 nights from March 5, 2027</p>"#))
        #expect(vancouver.contains(#"<p class="price">Price 1,299.99</p>"#))
        let shown = vancouver.replacing(#/ data-json='[^']*'/#, with: "")
        #expect(!shown.contains("Stanley Park"), "notes are on the trip's page, not its row")
        #expect(!vancouver.contains(#"class="star""#))
        let seattle = try #require(rows.first { $0.id == 1 }).markup
        #expect(seattle.contains(#" <span class="star" title="Favorite">★<span class="visually-hidden"> Favorite</span></span>"#))
    }

    @Test func theOneMenuHoldsEveryActionOnce() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let html = try await api.request("GET", "/trips?filter=favorites", headers: browser()).text
        #expect(html.matches(of: #/role="menu"/#).count == 1)
        let menu = try #require(
            html.firstMatch(of: #/<div id="row-menu" class="row-menu" role="menu" hidden>\n((?:<button[^\n]*\n)*)</div>/#))
        let items = menu.output.1.matches(
            of: #/<button type="button" role="menuitem" tabindex="-1" data-action="([a-z]+)">([^<]*)</button>/#)
        #expect(items.map { String($0.output.1) } == ["select", "favorite", "up", "down", "edit", "delete"])
        #expect(items.map { String($0.output.2) } == ["Select", "Favorite", "Move up", "Move down", "Edit", "Delete"])
        let polish = try await api.request("GET", "/trips", headers: browser("pl")).text
        #expect(polish.contains(#"data-action="delete">Usuń</button>"#))
        #expect(polish.contains(#"aria-label="Opcje: Vancouver">"#))
        #expect(polish.contains(#"<p class="price">Cena 1499,5</p>"#))
    }

    /// Rows are cached per trip version and language, and the same row serves every view:
    /// which actions a view allows is the menu's business, not the row's.
    @Test func aTripsRowIsTheSameInEveryView() async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let views = ["/trips", "/trips?filter=favorites", "/trips?sort=-price", "/trips?limit=1", "/favorites"]
        var seattle: [String] = []
        for view in views {
            let rows = try rowsOf(try await api.request("GET", view, headers: browser()).text)
            seattle.append(try #require(rows.first { $0.id == 1 }, "\(view)").markup)
        }
        #expect(Set(seattle).count == 1)
    }

    /// The summary counts the view (not the page of it) in the page's words, with the plural
    /// forms of its language: Polish has one for 1, one for 2 to 4, and one for 5 and up.
    @Test(arguments: [
        ("/trips", ["6 podróży", "26 nocy", "2 ulubione"]),
        ("/trips?filter=favorites", ["2 podróże", "11 nocy", "2 ulubione"]),
        ("/favorites", ["2 podróże", "11 nocy", "2 ulubione"]),
        ("/trips?country=United%20States", ["2 podróże", "9 nocy", "1 ulubiona"]),
        ("/trips?country=canada", ["1 podróż", "3 noce", "0 ulubionych"]),
        ("/trips?q=zurich", ["1 podróż", "1 noc", "0 ulubionych"]),
        ("/trips?q=nowhere", ["0 podróży", "0 nocy", "0 ulubionych"]),
        ("/trips?limit=2", ["6 podróży", "26 nocy", "2 ulubione"]),
        ("/trips?limit=2&after=2", ["6 podróży", "26 nocy", "2 ulubione"]),
        ("/trips?country=united%20states&limit=1", ["2 podróże", "9 nocy", "1 ulubiona"]),
        ("/trips?sort=price&filter=favorites", ["2 podróże", "11 nocy", "2 ulubione"]),
    ])
    func theSummaryCountsTheViewInPolish(path: String, shown: [String]) async throws {
        let api = try await APIServer(mode: .live)
        defer { api.stop() }
        let html = try await api.request("GET", path, headers: browser("pl")).text
        #expect(try summaryOf(html) == shown)
        #expect(html.contains(#"<ul id="trip-summary" class="trip-summary" aria-label="Podsumowanie">"#))
    }

    /// After changes the summary follows: the list keeps its totals as trips come, go and change.
    @Test(arguments: TestStore.all) func theSummaryFollowsChanges(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live)
        defer { api.stop() }
        #expect(try await api.request("PUT", "/favorites/2").status == 200)
        let patched = try await api.request(
            "PATCH", "/trips/3", headers: ["Content-Type": "application/merge-patch+json"], body: #"{"nights":20}"#)
        #expect(patched.status == 200)
        #expect(try await api.request("DELETE", "/trips/6").status == 204)
        let created = try await api.request(
            "POST", "/trips", headers: ["Content-Type": "text/plain"], body: "Oslo, Norway: 2 nights from May 1, 2027")
        #expect(created.status == 201)
        #expect(try summaryOf(try await api.request("GET", "/trips", headers: browser()).text) == ["6 trips", "41 nights", "3 favorites"])
        let favorites = try await api.request("GET", "/trips?filter=favorites", headers: browser("pl")).text
        #expect(try summaryOf(favorites) == ["3 podróże", "14 nocy", "3 ulubione"])
    }
}

// MARK: Reading pages

/// Each row of the list page: its trip's id and its markup, `<li …>` to `</li>`.
private func rowsOf(_ html: String) throws -> [(id: Int, markup: String)] {
    html.matches(of: #/<li class="trip[^"]*"[^>]* data-id="([0-9]+)"[^\n]*?</li>/#).compactMap { match in
        Int(match.output.1).map { ($0, String(match.output.0)) }
    }
}

/// The summary's entries, in order (the long-list tests read it too).
func summaryOf(_ html: String) throws -> [String] {
    let summary = try #require(html.firstMatch(of: #/<ul id="trip-summary"[^>]*>(.*?)</ul>/#))
    return summary.output.1.matches(of: #/<li>([^<]*)</li>/#).map { String($0.output.1) }
}
