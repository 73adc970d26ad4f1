import Foundation
import TripsDomain
import TripsFormats
import TripsHTTP

/// One trip as a page to share: Open Graph tags for link previews (the city as the title,
/// the sentence as the description, the trip's URL and its photo), the lesson's
/// `SharePreview(city, image:)` as a card, and a Share button (Web Share where the browser
/// has it, copying the link otherwise).
struct TripPage {
    let trip: Trip
    let version: UInt64
    /// The list's revision: where the script starts following changes.
    let revision: UInt64
    /// `http://` and the host as the request named it: previews need absolute URLs.
    let origin: String
    /// The language of the sentence; nil: English, not asked for.
    let language: Language?

    /// The trip's absolute URL: what a preview links to.
    var url: String { "\(origin)/trips/\(trip.id)" }

    func render() -> [UInt8] {
        var html = HTMLWriter()
        let sentence = trip.sentence(in: language ?? .english)
        PageDocument.open(title: "\(trip.city) · Trips", language: language ?? .english, bodyClass: "trip-page", into: &html) { html in
            html.markup("<meta property=\"og:type\" content=\"website\">\n<meta property=\"og:title\"")
            html.attribute("content", trip.city)
            html.markup(">\n<meta property=\"og:description\"")
            html.attribute("content", sentence)
            html.markup(">\n<meta property=\"og:url\"")
            html.attribute("content", url)
            html.markup(">\n")
            if let photo = trip.photo { openGraphImage(photo, into: &html) }
            html.markup("<meta name=\"description\"")
            html.attribute("content", sentence)
            html.markup(">\n<link rel=\"canonical\"")
            html.attribute("href", url)
            html.markup(">\n")
        }
        html.markup("<main id=\"view\"")
        html.attribute("data-etag", EntityTag.trip(trip.id, version: version, .html, language).headerValue)
        html.markup(" data-revision=\"")
        html.integer(revision)
        html.markup("\">\n<p lang=\"en\"><a href=\"/trips\">← All trips</a></p>\n<article class=\"share-preview trip")
        if trip.isFavorite { html.markup(" is-favorite") }
        html.markup("\" draggable=\"true\"")
        PageDocument.tripAttributes(trip, version: version, language: language ?? .english, into: &html)
        html.markup(">")
        PageDocument.thumbnail(trip, into: &html, large: true)
        html.markup("<h1 class=\"city\">")
        html.text(trip.city)
        html.markup("</h1>\n<p class=\"sentence\">")
        html.text(sentence)
        html.markup("</p>\n<dl class=\"facts\"><dt lang=\"en\">Country</dt><dd>")
        html.text(trip.country)
        html.markup("</dd><dt lang=\"en\">Nights</dt><dd>")
        html.integer(trip.nights)
        html.markup("</dd><dt lang=\"en\">Price</dt><dd>")
        html.text(trip.price.description)
        html.markup("</dd><dt lang=\"en\">Favorite</dt><dd lang=\"en\">")
        html.markup(trip.isFavorite ? "Yes" : "No")
        html.markup("</dd>")
        if !trip.notes.isEmpty {
            html.markup("<dt lang=\"en\">Notes</dt><dd class=\"notes\">")
            html.text(trip.notes)
            html.markup("</dd>")
        }
        html.markup("</dl>\n</article>\n<p class=\"needs-script\" lang=\"en\"><button type=\"button\" id=\"share\"")
        html.attribute("data-url", url)
        html.attribute("data-title", trip.city)
        html.attribute("data-text", sentence)
        html.markup(">Share</button></p>\n</main>\n")
        PageDocument.close(PageWords.for(language ?? .english), into: &html)
        return html.bytes
    }

    /// The photo a link preview shows: where it is, its size (so a preview can lay it out
    /// before fetching it), its type, and the city as its text.
    /// https://ogp.me/#structured
    private func openGraphImage(_ photo: TripPhoto, into html: inout HTMLWriter) {
        html.markup("<meta property=\"og:image\"")
        html.attribute("content", origin + photo.url)
        html.markup(">\n<meta property=\"og:image:type\"")
        html.attribute("content", photo.format.mediaType.description)
        html.markup(">\n<meta property=\"og:image:width\" content=\"")
        html.integer(photo.width)
        html.markup("\">\n<meta property=\"og:image:height\" content=\"")
        html.integer(photo.height)
        html.markup("\">\n<meta property=\"og:image:alt\"")
        html.attribute("content", trip.city)
        html.markup(">\n")
    }
}
