import Foundation
import TripsDomain
import TripsFormats
import TripsHTTP

/// The list as a browser shows it: the lesson's app, rendered by the server and complete
/// without a script (the chips, the sort choices and the search are links and a form).
///
/// `trips.js` adds drag and drop and the actions; after a change, and on every event of
/// `/trips/changes`, it fetches this same page again and swaps `#view`, so the server stays
/// the only thing that renders a trip.
///
/// A long view comes a page at a time (`Pagination.pageRows` rows unless the URL names a
/// `limit`), with a "Next page" link that works without the script; the script appends the
/// next page's rows as the reader reaches the end (`trips.js`, "Long lists").
struct TripsListPage {
    /// The trips the page shows, in the view's order: one page of the view.
    let trips: [Trip]
    /// The whole list: its countries make the chips.
    let list: TripList
    let query: TripQuery
    /// The totals of the whole view, which the summary shows (more than `trips` when paged).
    let totals: TripTotals
    /// Which page of the view this is: its `limit` and the trip it starts after.
    let page: Pagination
    /// The next page's URL, while more follow.
    let nextPage: String?
    /// The language of the sentences; nil: English, not asked for.
    let language: Language?
    /// Where rows rendered for earlier answers are kept.
    let cache: RepresentationCache

    /// Reordering is for the list in stored order, as the lesson's reorder container is off
    /// while a filter is on. A page of it (and the pages the script appends) is a run of the
    /// stored order, so "before trip X" and "the end" (of the whole list) mean what they say.
    private var isReorderable: Bool { query.isEverything }

    /// At most this many country chips: 100,000 trips may name as many countries, and the page
    /// stays light (any other country is one `?country=` or search away). Small lists show all.
    static let countryChipLimit = 50

    /// The page's own words, in the language of its sentences.
    private var words: PageWords { PageWords.for(language ?? .english) }

    func render() -> [UInt8] {
        var html = HTMLWriter(reservingCapacity: 2048 + 900 * trips.count)
        PageDocument.open(
            title: words["list.title"], language: language ?? .english, bodyClass: "list-page", into: &html)
        html.markup("<main id=\"view\"")
        html.attribute("data-etag", EntityTag.list(revision: list.revision, .html, language).headerValue)
        html.markup(" data-revision=\"")
        html.integer(list.revision)
        html.markup(isReorderable ? "\" data-reorderable=\"true\">\n" : "\" data-reorderable=\"false\">\n")
        header(into: &html)
        PhotoStrip.render(trips, words, into: &html)
        TripSummary.render(totals, words: words, into: &html)
        chips(into: &html)
        tools(into: &html)
        rows(into: &html)
        html.markup("</main>\n")
        RowMenu.render(words: words, into: &html)
        TripForms.render(words, into: &html)
        EditorPanel.render(words, into: &html)
        ConfirmPanel.render(words, into: &html)
        PhotoStrip.renderViewer(words, into: &html)
        PageDocument.close(words, into: &html)
        return html.bytes
    }

    private func header(into html: inout HTMLWriter) {
        html.markup("<header class=\"top\"><h1>")
        html.text(words["list.title"])
        html.markup("</h1></header>\n")
    }

    /// All, Favorites, then one chip per country in first-seen order, as the lesson's
    /// FilterBar builds them. Favorites is where trips are dropped to become favorites.
    private func chips(into html: inout HTMLWriter) {
        html.markup("<nav class=\"chips\"")
        html.attribute("aria-label", words["filter.label"])
        html.markup(">\n")
        var all = query
        (all.filter, all.country) = (.all, nil)
        chip(words["filter.all"], all, isCurrent: query.filter == .all && query.country == nil, into: &html)
        var favorites = all
        favorites.filter = .favorites
        html.markup("<a id=\"favorites-chip\" class=\"chip favorites\"")
        html.attribute("href", favorites.pagePath)
        if query.filter == .favorites && query.country == nil { html.markup(" aria-current=\"page\"") }
        html.markup(">")
        html.text(words["filter.favorites"])
        html.markup(" <span id=\"favorites-count\" class=\"badge\">")
        html.text(words.number(list.totals.favorites))
        html.markup("</span></a>\n")
        let chosenCountry = query.country?.searchFolded
        for country in cache.countries(revision: list.revision, build: { Self.countries(of: list) }) {
            var view = all
            view.country = country
            chip(country, view, isCurrent: chosenCountry == country.searchFolded, into: &html)
        }
        html.markup("</nav>\n")
    }

    /// The chips' countries: the first `countryChipLimit` in first-seen order.
    static func countries(of list: TripList) -> [String] {
        list.firstCountries(limit: countryChipLimit)
    }

    /// Renders a page of one sample trip in every language: what each list page shares is
    /// built once per process on first use (each language's date formats, from ICU; the
    /// forms), which would otherwise make the first reader after a start wait some 100 ms.
    static func prepare() {
        let list = TripList(trips: Array(Trip.samples.prefix(1)))
        for language in Language.allCases {
            let page = TripsListPage(
                trips: Array(list.trips), list: list, query: TripQuery(), totals: list.totals, page: Pagination(), nextPage: nil,
                language: language, cache: RepresentationCache())
            _ = page.render()
        }
    }

    private func chip(_ title: String, _ view: TripQuery, isCurrent: Bool, into html: inout HTMLWriter) {
        html.markup("<a class=\"chip\"")
        html.attribute("href", view.pagePath)
        if isCurrent { html.markup(" aria-current=\"page\"") }
        html.markup(">")
        html.text(title)
        html.markup("</a>\n")
    }

    /// The search form (it keeps the filter and sort as hidden fields) and the sort choices.
    private func tools(into html: inout HTMLWriter) {
        html.markup("<div class=\"tools\">\n<form class=\"search\" role=\"search\" action=\"/trips\" method=\"get\">")
        html.markup("<label for=\"search\">")
        html.text(words["search.label"])
        html.markup("</label><input id=\"search\" type=\"search\" name=\"q\"")
        html.attribute("value", query.search ?? "")
        html.markup(">")
        if query.filter != .all { hidden("filter", query.filter.rawValue, into: &html) }
        if let country = query.country { hidden("country", country, into: &html) }
        if let order = query.order { hidden("sort", order.parameter, into: &html) }
        html.markup("<button type=\"submit\">")
        html.text(words["search.submit"])
        html.markup("</button></form>\n<nav class=\"sort\"")
        html.attribute("aria-label", words["sort.label"])
        html.markup(">")
        html.text(words["sort.lead"])
        let choices: [(String, TripOrder?)] = [
            (words["sort.stored"], nil), (words["sort.byDate"], TripOrder(key: .start)),
            (words["sort.latestFirst"], TripOrder(key: .start, isDescending: true)), (words["sort.byPrice"], TripOrder(key: .price)),
            (words["sort.highestPriceFirst"], TripOrder(key: .price, isDescending: true)),
        ]
        for (title, order) in choices {
            var view = query
            view.order = order
            html.markup(" <a")
            html.attribute("href", view.pagePath)
            if query.order == order { html.markup(" aria-current=\"page\"") }
            html.markup(">")
            html.text(title)
            html.markup("</a>")
        }
        html.markup("</nav>\n</div>\n<p class=\"hint\">")
        html.text(isReorderable ? words["hint.reorderable"] : words["hint.fixed"])
        html.markup("</p>\n")
    }

    private func hidden(_ name: StaticString, _ value: String, into html: inout HTMLWriter) {
        html.markup("<input type=\"hidden\" name=\"")
        html.markup(name)
        html.markup("\"")
        html.attribute("value", value)
        html.markup(">")
    }

    /// The rows, then the link to the next page while more follow, then where a drag puts
    /// trips at the end of the whole list. The list says how many rows a page holds and which
    /// trip it starts after: the script reloads as many as it has appended, and moves the
    /// first row up in front of that trip.
    private func rows(into html: inout HTMLWriter) {
        html.markup("<ol id=\"trips\" class=\"trips\"")
        html.attribute("aria-label", words["list.title"])
        if let limit = page.limit {
            html.markup(" data-limit=\"")
            html.integer(limit)
            html.markup("\"")
        }
        if let after = page.after {
            html.markup(" data-after=\"")
            html.integer(after)
            html.markup("\"")
        }
        html.markup(">\n")
        let language = language ?? .english
        for trip in trips {
            let version = list.version(of: trip.id) ?? 0
            html.markup(
                cache.pageRow(trip.id, version: version, language: language) { Self.row(trip, version: version, language: language) })
        }
        html.markup("</ol>\n")
        if trips.isEmpty {
            html.markup("<p class=\"empty\">")
            html.text(words["list.empty"])
            html.markup("</p>\n")
        }
        if let nextPage {
            html.markup("<p id=\"more\" class=\"more\"><a rel=\"next\"")
            html.attribute("href", nextPage)
            html.markup(">")
            html.text(words["more.next"])
            html.markup("</a></p>\n")
        }
        html.markup("<div id=\"end-zone\" class=\"end-zone\">")
        html.text(words["list.endZone"])
        html.markup("</div>\n")
    }

    /// One trip, as the lesson's rows show it: its photo (or letter), its city (a link to its
    /// page) and favorite star, its sentence and price, and the button of its actions' menu
    /// (`RowMenu`). The same row serves every view, so it is cached per version and language.
    private static func row(_ trip: Trip, version: UInt64, language: Language) -> [UInt8] {
        let words = PageWords.for(language)
        var html = HTMLWriter(reservingCapacity: 1024)
        html.markup("<li class=\"trip")
        if trip.isFavorite { html.markup(" is-favorite") }
        html.markup("\" tabindex=\"0\" draggable=\"true\"")
        PageDocument.tripAttributes(trip, version: version, language: language, into: &html)
        html.markup(">")
        PageDocument.thumbnail(trip, into: &html)
        html.markup("<div class=\"summary\"><a class=\"city\"")
        html.attribute("href", "/trips/\(trip.id)")
        html.markup(">")
        html.text(trip.city)
        html.markup("</a>")
        if trip.isFavorite {
            let favorite = words["row.isFavorite"]
            html.markup(" <span class=\"star\"")
            html.attribute("title", favorite)
            html.markup(">★<span class=\"visually-hidden\"> ")
            html.text(favorite)
            html.markup("</span></span>")
        }
        html.markup("<p class=\"sentence\">")
        html.text(trip.sentence(in: language))
        html.markup("</p><p class=\"price\">")
        html.text(words["row.price", ["price": words.price(trip.exactPrice)]])
        html.markup("</p></div>")
        RowMenu.renderButton(for: trip, words: words, into: &html)
        html.markup("</li>\n")
        return html.bytes
    }
}
