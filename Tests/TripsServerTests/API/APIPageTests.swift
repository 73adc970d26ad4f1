import Foundation
import Testing
import TripsDomain
import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// What a browser sends on a page load.
private let browser = ["Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"]

private let tokens = AccessTokens([(name: "alice", token: "alice-0123456789abcdef")])

/// A trip whose every text field would run or break out of an attribute if it were not escaped.
private let hostileTrip =
    #"{"city":"<img src=x onerror=alert(1)>","country":"Test & <b>Land</b>","nights":2,"price":1,"start":"2027-05-01","notes":"\"quoted\" & 'single'"}"#

/// The browser page: `text/html` next to the JSON and text of the list, the favorites and a
/// trip; its validators and security headers; `GET /`; the compiled-in assets; escaping.
@Suite struct APIBrowserPageTests {
    // MARK: Negotiation

    @Test(arguments: TestStore.all, ["/trips", "/favorites", "/trips/2"])
    func aBrowserGetsThePage(store: TestStore, path: String) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let page = try await api.request("GET", path, headers: browser)
        #expect(page.status == 200)
        #expect(page.field("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.hasPrefix("<!doctype html>"))
        for accept in ["*/*", nil] {
            let json = try await api.request("GET", path, headers: accept.map { ["Accept": $0] } ?? [:])
            #expect(json.status == 200)
            #expect(json.field("Content-Type") == "application/json", "Accept: \(accept ?? "none")")
        }
    }

    @Test func thePageIsNotOfferedWhereThereIsNone() async throws {
        let api = try await APIServer()
        let health = try await api.request("GET", "/health", headers: ["Accept": "text/html"])
        #expect(health.status == 406)
    }

    // MARK: Validators and security headers

    @Test(
        arguments: TestStore.all, [("/trips", #""list-r0-html""#), ("/favorites", #""list-r0-html""#), ("/trips/2", #""trip-2-r0-html""#)])
    func thePageHasItsOwnValidatorAndSecurityHeaders(store: TestStore, example: (path: String, tag: String)) async throws {
        let (path, tag) = example
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let page = try await api.request("GET", path, headers: browser)
        let etag = try #require(page.field("ETag"))
        #expect(etag.hasSuffix(#"-html""#))
        #expect(etag == tag)
        #expect(page.field("Vary") == "Accept, Accept-Encoding")
        let policy = try #require(page.field("Content-Security-Policy"))
        #expect(policy.contains("default-src 'self'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(page.field("X-Content-Type-Options") == "nosniff")
        let json = try await api.request("GET", path)
        #expect(json.field("ETag") != nil && json.field("ETag") != etag)
        var conditional = browser
        conditional["If-None-Match"] = etag
        let unchanged = try await api.request("GET", path, headers: conditional)
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        #expect(unchanged.field("ETag") == etag)
    }

    @Test(arguments: TestStore.all) func theListPagesTagGuardsAReorder(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let listTag = try #require(try await api.request("GET", "/trips", headers: browser).field("ETag"))
        let reorder = #"{"sources":[2],"destination":"end"}"#
        let accepted = try await api.json("PATCH", "/trips", reorder, headers: ["If-Match": listTag])
        #expect(accepted.status == 200)
        #expect(api.order == [1, 3, 4, 5, 6, 2])
        let stale = try await api.json("PATCH", "/trips", reorder, headers: ["If-Match": listTag])
        #expect(stale.status == 412)
        #expect(api.order == [1, 3, 4, 5, 6, 2])
    }

    @Test(arguments: TestStore.all) func aTripPagesTagGuardsAPatch(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let tripTag = try #require(try await api.request("GET", "/trips/2", headers: browser).field("ETag"))
        let merge = ["Content-Type": "application/merge-patch+json", "If-Match": tripTag]
        let accepted = try await api.request("PATCH", "/trips/2", headers: merge, body: #"{"nights": 4}"#)
        #expect(accepted.status == 200)
        let stale = try await api.request("PATCH", "/trips/2", headers: merge, body: #"{"nights": 9}"#)
        #expect(stale.status == 412)
        #expect(api.store.list[2]?.nights == 4)
    }

    // MARK: The root and the assets

    @Test(arguments: ["GET", "HEAD"])
    func theRootSendsBrowsersToTheList(method: String) async throws {
        let api = try await APIServer()
        let root = try await api.request(method, "/", headers: browser)
        #expect(root.status == 303)
        #expect(root.field("Location") == "/trips")
    }

    @Test(arguments: [("/assets/trips.css", "text/css; charset=utf-8"), ("/assets/trips.js", "text/javascript; charset=utf-8")])
    func anAssetIsServedWithAStrongTagAndRevalidated(path: String, type: String) async throws {
        let api = try await APIServer()
        let asset = try await api.request("GET", path)
        #expect(asset.status == 200)
        #expect(asset.field("Content-Type") == type)
        #expect(asset.field("Cache-Control") == "no-cache")
        #expect(asset.field("X-Content-Type-Options") == "nosniff")
        #expect(asset.body == (path.hasSuffix(".css") ? PageAsset.stylesheet.bytes : PageAsset.script.bytes))
        let etag = try #require(asset.field("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))  // strong: no W/
        let unchanged = try await api.request("GET", path, headers: ["If-None-Match": etag])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        #expect(unchanged.field("ETag") == etag)
        let refused = try await api.request("GET", path, headers: ["Accept": "image/png"])
        #expect(refused.status == 406)
    }

    /// The script reads the page's words from the catalog of the page's language.
    @Test func eachLanguagesWordsAreAScriptOfTheirOwn() async throws {
        let api = try await APIServer()
        let page = try await api.request("GET", "/trips", headers: browser.merging(["Accept-Language": "pl"]) { $1 })
        #expect(page.text.contains(#"<script src="/assets/words.js?lang=pl" defer>"#))
        let words = try await api.request("GET", "/assets/words.js?lang=pl")
        #expect(words.status == 200)
        #expect(words.field("Content-Type") == "text/javascript; charset=utf-8")
        #expect(words.text.hasPrefix("const WORDS = {"))
        #expect(words.text.contains(#""list.count.few": "{count} podróże""#))
        let etag = try #require(words.field("ETag"))
        #expect(try await api.request("GET", "/assets/words.js?lang=pl", headers: ["If-None-Match": etag]).status == 304)
        #expect(try await api.request("GET", "/assets/words.js?lang=fr").field("ETag") != etag)
        for refused in ["", "?lang=xx", "?lang=PL", "?lang=pl&lang=fr", "?lang=" + String(repeating: "a", count: 5000)] {
            let answer = try await api.request("GET", "/assets/words.js" + refused)
            #expect(answer.status == 400, "\(refused.prefix(20))")
        }
    }

    // MARK: Escaping

    @Test(arguments: TestStore.all) func aTripsTextIsEscapedOnBothPages(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let created = try await api.json("POST", "/trips", hostileTrip)
        #expect(created.status == 201)
        let id = try #require(api.order.last)
        for path in ["/trips", "/trips/\(id)"] {
            let page = try await api.request("GET", path, headers: browser)
            #expect(page.status == 200)
            let html = page.text
            #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(path)")
            #expect(!html.contains("<img src=x"), "\(path)")
            #expect(html.contains("Test &amp; &lt;b&gt;Land&lt;/b&gt;"), "\(path)")
            #expect(!html.contains("<b>"), "\(path)")
            // The notes: as text on the trip's page, and in the trip's JSON on both (a row shows none).
            #expect(html.contains(#"\"quoted\" &amp; &#39;single&#39;"#), "\(path)")
            #expect(!html.contains(#""quoted""#) && !html.contains("'single'"), "\(path)")
            #expect(html.contains(#"data-trip='{"country":"#), "\(path)")
            try expectWellFormedTags(html, path)
        }
    }

    @Test(arguments: TestStore.all) func aSearchIsEscapedWhereThePageRepeatsIt(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let page = try await api.request("GET", "/trips?q=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E", headers: browser)
        #expect(page.status == 200)
        #expect(page.text.contains(#"value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;""#))
        #expect(!page.text.contains("<script>alert"))
        try expectWellFormedTags(page.text, "search")
    }

    @Test(arguments: TestStore.all, ["/trips", "/trips?filter=favorites", "/favorites", "/trips/2"])
    func thePageHasNoInlineScriptOrStyle(store: TestStore, path: String) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let html = try await api.request("GET", path, headers: browser).text
        let scripts = html.matches(of: try Regex("<script[^>]*>")).map { String(html[$0.range]) }
        #expect(scripts == [#"<script src="/assets/words.js?lang=en" defer>"#, #"<script src="/assets/trips.js" defer>"#])
        #expect(html.contains(#"<link rel="stylesheet" href="/assets/trips.css">"#))
        #expect(!html.contains("<style"))
        #expect(!html.contains("style="))
        #expect(html.firstMatch(of: try Regex(#"\son[a-z]+="#)) == nil)
    }

    // MARK: The list page

    /// Rows are cached per trip version: a change shows at once, a deleted trip's row goes,
    /// and a view without moves says so (its menu then offers none).
    @Test(arguments: TestStore.all) func cachedRowsFollowEveryChange(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        _ = try await api.request("GET", "/trips", headers: browser)
        let patched = try await api.request(
            "PATCH", "/trips/2", headers: ["Content-Type": "application/merge-patch+json"], body: #"{"nights":9}"#)
        #expect(patched.status == 200)
        let afterPatch = try await api.request("GET", "/trips", headers: browser).text
        #expect(afterPatch.contains("Vancouver, Canada: 9 nights from March 5, 2027"))
        #expect(!afterPatch.contains("Vancouver, Canada: 3 nights"))
        #expect(try await api.request("DELETE", "/trips/3").status == 204)
        let afterDelete = try await api.request("GET", "/trips", headers: browser).text
        #expect(try rowIDs(afterDelete) == [1, 2, 4, 5, 6])
        let filtered = try await api.request("GET", "/trips?country=Canada", headers: browser).text
        #expect(try rowIDs(filtered) == [2])
        #expect(filtered.contains(#"data-reorderable="false""#))
        let whole = try await api.request("GET", "/trips?sort=start", headers: browser).text
        #expect(whole.contains(#"data-reorderable="false""#))
        #expect(try await api.request("GET", "/trips", headers: browser).text.contains(#"data-reorderable="true""#))
    }

    /// A photo's change moves its trip's version, so the row and the strip show it at once,
    /// and the trip page names it for previews under the host the request named.
    @Test(arguments: TestStore.all) func cachedRowsFollowAPhotoChange(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        _ = try await api.request("GET", "/trips", headers: browser)
        let put = try await api.request(
            "PUT", "/trips/3/photo", headers: ["Content-Type": "image/png"], binaryBody: try PhotoFixture.bytes("plain.png"))
        #expect(put.status == 200)
        guard case .object(let photo)? = try put.member("photo"), case .string(let url)? = photo["url"] else {
            throw TestFailure("no photo in \(put.text)")
        }
        let withPhoto = try await api.request("GET", "/trips", headers: browser).text
        #expect(withPhoto.contains(#"<img class="thumb" src="\#(url)""#))
        #expect(withPhoto.contains(#"data-action="enlarge" draggable="true" data-id="3"><img class="" src="\#(url)""#))
        let tripPage = try await api.request("GET", "/trips/3", headers: browser.merging(["Host": "127.0.0.1:9999"]) { $1 }).text
        #expect(tripPage.contains(#"<meta property="og:image" content="http://127.0.0.1:9999\#(url)">"#))
        #expect(try await api.request("DELETE", "/trips/3/photo").status == 200)
        let cleared = try await api.request("GET", "/trips", headers: browser).text
        #expect(!cleared.contains(url))
    }

    @Test(arguments: TestStore.all) func theListPageShowsTheStoredOrderAndTheChips(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let html = try await api.request("GET", "/trips", headers: browser).text
        #expect(try rowIDs(html) == [1, 2, 3, 4, 5, 6])
        #expect(try chipTitles(html) == ["All", "Favorites 2", "United States", "Canada", "Chile", "Japan", "Switzerland"])
        #expect(html.contains(#"data-reorderable="true""#))
        #expect(html.contains(#"<a class="chip" href="/trips" aria-current="page">All</a>"#))
        #expect(html.contains(#"<form class="search" role="search" action="/trips" method="get">"#))
        #expect(html.contains(#"type="search" name="q""#))
        for sort in ["start", "-start", "price", "-price"] {
            #expect(html.contains(#"href="/trips?sort=\#(sort)""#), "sort=\(sort)")
        }
        #expect(!html.contains(#"rel="next""#))
        #expect(html.contains(#"<ul id="trip-summary" class="trip-summary" aria-label="Summary"><li>6 trips</li>"#))
        #expect(html.contains(#"<main id="view" data-etag="&quot;list-r0-html&quot;" data-revision="0" data-reorderable="true">"#))

        // A row's tag is what the script sends as If-Match to change that trip.
        let rowTag = try #require(html.firstMatch(of: try Regex(#"data-id="2" data-etag='([^']*)'"#))?.output[1].substring)
        let favorite = try await api.request("PUT", "/favorites/2", headers: ["If-Match": String(rowTag)])
        #expect(favorite.status == 200)

        let reordered = try await api.json("PATCH", "/trips", #"{"sources":[2],"destination":"end"}"#)
        #expect(reordered.status == 200)
        let after = try await api.request("GET", "/trips", headers: browser)
        #expect(after.field("ETag") == #""list-r2-html""#)
        #expect(try rowIDs(after.text) == [1, 3, 4, 5, 6, 2])
    }

    @Test(arguments: TestStore.all) func theFavoritesViewMarksItsChipAndTurnsReorderingOff(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let html = try await api.request("GET", "/trips?filter=favorites", headers: browser).text
        #expect(try rowIDs(html) == [1, 5])
        #expect(html.contains(#"id="favorites-chip" class="chip favorites" href="/trips?filter=favorites" aria-current="page">"#))
        #expect(!html.contains(#"href="/trips" aria-current="page""#))
        #expect(html.contains(#"data-reorderable="false""#))
        #expect(html.contains(#"<input type="hidden" name="filter" value="favorites">"#))
        #expect(html.contains(#"aria-label="Summary"><li>2 trips</li>"#))
        let favorites = try await api.request("GET", "/favorites", headers: browser).text
        #expect(try rowIDs(favorites) == [1, 5])
        #expect(favorites.contains(#"data-reorderable="false""#))
    }

    @Test(arguments: TestStore.all) func aPagedListLinksTheNextPage(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let first = try await api.request("GET", "/trips?limit=2", headers: browser)
        #expect(first.status == 200)
        #expect(try rowIDs(first.text) == [1, 2])
        #expect(first.text.contains(#"<a rel="next" href="/trips?limit=2&amp;after=2">"#))
        let last = try await api.request("GET", "/trips?limit=2&after=4", headers: browser)
        #expect(try rowIDs(last.text) == [5, 6])
        #expect(!last.text.contains(#"rel="next""#))
    }

    // MARK: The trip page

    @Test(arguments: TestStore.all) func aTripPageCarriesOpenGraphTagsAndAShareButton(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let html = try await api.request("GET", "/trips/2", headers: browser).text
        let url = "http://localhost/trips/2"
        #expect(html.contains(#"<meta property="og:title" content="Vancouver">"#))
        #expect(html.contains(#"<meta property="og:description" content="Vancouver, Canada: 3 nights from March 5, 2027">"#))
        #expect(html.contains(#"<meta property="og:url" content="\#(url)">"#))
        #expect(html.contains(#"<title>Vancouver · Trips</title>"#))
        #expect(html.contains(#"<button type="button" id="share" data-url="\#(url)""#))
        #expect(html.contains(">Share</button>"))
    }

    /// Trip pages are kept per revision and per host: a change to another trip (the one that
    /// starts next, which the page names) shows at once, and each host sees links to itself.
    @Test(arguments: TestStore.all) func aKeptTripPageFollowsEveryChangeAndEachHost(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let first = try await api.request("GET", "/trips/2", headers: browser)
        #expect(first.text.contains("Atacama"))  // the trip after Vancouver
        #expect(try await api.request("GET", "/trips/2", headers: browser).body == first.body)
        let patch = ["Content-Type": "application/merge-patch+json"]
        #expect(try await api.request("PATCH", "/trips/3", headers: patch, body: #"{"city":"Lima"}"#).status == 200)
        let changed = try await api.request("GET", "/trips/2", headers: browser)
        #expect(changed.text.contains("Lima") && !changed.text.contains("Atacama"))
        #expect(changed.field("ETag") != first.field("ETag"))
        let otherHost = try await api.request("GET", "/trips/2", headers: browser.merging(["Host": "127.0.0.1:\(api.port)"]) { $1 })
        #expect(otherHost.text.contains(#"<meta property="og:url" content="http://127.0.0.1:\#(api.port)/trips/2">"#))
        let gzipped = try await api.request("GET", "/trips/2", headers: browser.merging(["Accept-Encoding": "gzip"]) { $1 })
        #expect(gzipped.field("Content-Encoding") == "gzip")
        #expect(try await api.request("GET", "/trips/2", headers: browser).body == changed.body)
    }

    // MARK: Weight and access

    /// 97,523 bytes uncompressed: the page with the six samples (13,728), trips.css (12,311), trips.js
    /// (71,266: the rows' menu, the trip page, the words, long lists, offline and undo) and the
    /// icon; each language's words.js comes beside them. 60,000 was the budget before #29.
    @Test(arguments: TestStore.all) func theListPageAndItsAssetsWeighUnder100KB(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let page = try await api.request("GET", "/trips", headers: browser)
        let total = page.body.count + PageAsset.stylesheet.bytes.count + PageAsset.script.bytes.count + PageAsset.icon.bytes.count
        #expect(total < 100_000, "\(total) bytes")
    }

    @Test(arguments: TestStore.all) func withTokensThePageIsReadableWithoutOne(store: TestStore) async throws {
        let api = try await APIServer(on: store, access: AccessPolicy(tokens: tokens, isPrivate: false))
        defer { api.stop() }
        for path in ["/trips", "/trips/2", "/assets/trips.css", "/assets/trips.js"] {
            let response = try await api.request("GET", path, headers: browser)
            #expect(response.status == 200, "\(path)")
        }
        let page = try await api.request("GET", "/trips", headers: browser)
        #expect(page.field("Content-Type") == "text/html; charset=utf-8")
        #expect(try await api.request("PUT", "/favorites/2").status == 401)  // changes still need one
    }
}

// MARK: Reading pages

/// The ids of the list page's rows, in page order.
private func rowIDs(_ html: String) throws -> [Int] {
    html.matches(of: try Regex(#"<li class="trip[^"]*"[^>]* data-id="([0-9]+)""#)).compactMap { match in
        match.output[1].substring.flatMap { Int($0) }
    }
}

/// The chips' text, tags removed.
private func chipTitles(_ html: String) throws -> [String] {
    guard let start = html.range(of: #"<nav class="chips""#), let end = html.range(of: "</nav>", range: start.upperBound..<html.endIndex)
    else { throw TestFailure("no chips") }
    let nav = html[start.upperBound..<end.lowerBound]
    return try nav.matches(of: try Regex("<a [^>]*>(.*?)</a>")).map { match in
        let inner = String(match.output[1].substring ?? "")
        return inner.replacing(try Regex("<[^>]*>"), with: "")
    }
}

/// Every start tag is made of a name and attributes whose values are quoted and escaped:
/// a client's `"` or `>` that ended a value early would leave something else.
private func expectWellFormedTags(_ html: String, _ context: String) throws {
    // A value in double quotes, or in single quotes (JSON and tags: its double quotes as they are).
    let value = #"(?:="(?:[^"<>'&]|&(?:amp|lt|gt|quot|#39);)*"|='(?:[^<>'&]|&(?:amp|lt|gt|#39);)*')"#
    let tag = try Regex(#"<[a-z][a-z0-9]*(?:\s+[a-z][a-z0-9:-]*"# + value + #"?)*\s*>"#)
    for start in html.matches(of: try Regex("<[a-zA-Z][^>]*>")) {
        let text = String(html[start.range])
        #expect(text.wholeMatch(of: tag) != nil, "\(context): \(text)")
        let names = text.replacing(try Regex(#"="[^"]*"|='[^']*'"#), with: "")
        #expect(names.firstMatch(of: try Regex(#"\son[a-z]+"#)) == nil, "\(context): \(text)")
    }
}
