import Testing
import TripsDomain
import TripsFormats
@testable import TripsServer

/// Trips' photos on the pages, rendered without a server: each row's photo or letter, the
/// photo strip in the view's order, the trip page's card and its Open Graph image.
@Suite struct PagePhotoTests {
    @Test func aRowShowsItsPhotoSizedLazilyWithItsCityAsText() throws {
        let html = listPage(photos: [2: try photo("a", width: 480, height: 320)])
        let image = #"<img class="thumb" src="/photos/\#(digest("a")).jpg" width="480" height="320" alt="Vancouver""#
        #expect(html.contains(image + #" loading="lazy" decoding="async" draggable="false">"#))
        #expect(html.contains(#"<span class="thumb hue-"#), "a trip without a photo keeps its letter")
    }

    @Test func theStripShowsThePhotosOfTheViewInItsOrder() throws {
        let photos = [4: try photo("d"), 2: try photo("b"), 6: try photo("f")]
        #expect(stripIDs(listPage(photos: photos)) == [2, 4, 6])
        let byPrice = listPage(photos: photos, query: TripQuery(order: TripOrder(key: .price, isDescending: true)))
        let trips = Trip.samples.sorted { $0.price > $1.price }.map(\.id).filter { photos[$0] != nil }
        #expect(stripIDs(byPrice) == trips)
        #expect(stripIDs(listPage(photos: photos, query: TripQuery(country: "Canada"))) == [2])
    }

    @Test func withoutPhotosThereIsNoStripButTheViewerIsThereForLater() {
        let html = listPage(photos: [:])
        #expect(!html.contains("strip-photo"))
        #expect(!html.contains("/photos/"))
        // A photo dropped later shows the strip after a refresh of #view; the viewer is outside it.
        #expect(html.contains(#"<dialog id="photo-viewer""#))
    }

    @Test func aCityIsEscapedWhereItIsAPhotosText() throws {
        var trip = Trip.samples[1]
        trip.city = #"<b onclick="x">"#
        trip.photo = try photo("e")
        let html = String(decoding: TripsListPage.page(of: [trip]).render(), as: UTF8.self)
        #expect(html.contains(#"alt="&lt;b onclick=&quot;x&quot;&gt;""#))
        #expect(!html.contains(#"<b onclick"#))
    }

    @Test func aTripPageShowsItsPhotoAndNamesItForPreviews() throws {
        var trip = Trip.samples[1]
        trip.photo = try photo("c", format: .png, width: 1200, height: 630)
        let html = tripPage(trip)
        let image = "http://trips.example:8080/photos/\(digest("c")).png"
        #expect(html.contains(#"<meta property="og:image" content="\#(image)">"#))
        #expect(html.contains(#"<meta property="og:image:type" content="image/png">"#))
        #expect(html.contains(#"<meta property="og:image:width" content="1200">"#))
        #expect(html.contains(#"<meta property="og:image:height" content="630">"#))
        #expect(html.contains(#"<meta property="og:image:alt" content="Vancouver">"#))
        #expect(html.contains(#"<meta property="og:url" content="http://trips.example:8080/trips/2">"#))
        // Seen at once on its page: not lazy.
        let card = #"<img class="thumb large" src="/photos/\#(digest("c")).png" width="1200" height="630" alt="Vancouver""#
        #expect(html.contains(card + #" decoding="async" draggable="false">"#))
    }

    @Test func aTripPageWithoutAPhotoNamesNoImage() {
        var trip = Trip.samples[1]
        trip.photo = nil
        let html = tripPage(trip)
        #expect(!html.contains("og:image"))
        #expect(html.contains(#"<span class="thumb large hue-"#))
    }
}

// MARK: Pages to read

/// A digest made of one repeated hexadecimal digit.
private func digest(_ digit: Character) -> String { String(repeating: digit, count: 64) }

private func photo(_ digit: Character, format: ImageFormat = .jpeg, width: Int = 480, height: Int = 320) throws -> TripPhoto {
    try #require(TripPhoto(digest: digest(digit), format: format, width: width, height: height, byteCount: 9_000))
}

/// The list page of the sample trips, with exactly these photos.
private func listPage(photos: [Trip.ID: TripPhoto], query: TripQuery = TripQuery()) -> String {
    let trips = Trip.samples.map { trip in
        var trip = trip
        trip.photo = photos[trip.id]
        return trip
    }
    let list = TripList(trips: trips)
    let view = list.trips.matching(query)
    let page = TripsListPage(
        trips: view, list: list, query: query, totals: TripTotals(view), page: Pagination(), nextPage: nil, language: nil,
        cache: RepresentationCache())
    return String(decoding: page.render(), as: UTF8.self)
}

private func tripPage(_ trip: Trip) -> String {
    let page = TripPage(trip: trip, version: 1, next: nil, revision: 1, origin: "http://trips.example:8080", language: nil)
    return String(decoding: page.render(), as: UTF8.self)
}

/// The trip ids of the strip's photos, in page order.
private func stripIDs(_ html: String) -> [Int] {
    html.matches(of: #/class="strip-photo"[^>]* data-id="([0-9]+)"/#).compactMap { Int($0.output.1) }
}

extension TripsListPage {
    /// The whole list of `trips` as its page.
    fileprivate static func page(of trips: [Trip]) -> TripsListPage {
        let list = TripList(trips: trips)
        return TripsListPage(
            trips: Array(list.trips), list: list, query: TripQuery(), totals: list.totals, page: Pagination(), nextPage: nil,
            language: nil, cache: RepresentationCache())
    }
}
