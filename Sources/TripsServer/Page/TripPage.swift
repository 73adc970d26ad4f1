import Foundation
import TripsDomain
import TripsFormats
import TripsHTTP

/// One trip as a page, the lesson's `TripDetail`: the trip's card (its photo or letter, the
/// sentence, the fields), its actions (Edit inline, Favorite, Share, Delete behind "This
/// cannot be undone"), "Next: <city>" to the trip that starts soonest after it, and "All
/// trips". The links work without a script; `trips.js` makes the actions requests and
/// refreshes `#view` after each change, as it does the list.
///
/// For link previews it carries Open Graph tags: the city as the title, the sentence as the
/// description, the trip's URL and its photo, as the lesson's `SharePreview(city, image:)`.
struct TripPage {
    let trip: Trip
    let version: UInt64
    /// The trip that starts soonest after this one (`TripList.next(after:)`), if any.
    let next: Trip?
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
        let language = language ?? .english
        let words = PageWords.for(language)
        let sentence = trip.sentence(in: language)
        let title = words["detail.title", ["city": trip.city]]
        PageDocument.open(title: title, language: language, bodyClass: "trip-page", into: &html) { html in
            openGraph(sentence: sentence, into: &html)
        }
        html.markup("<main id=\"view\"")
        html.attribute("data-etag", EntityTag.tripPage(trip.id, revision: revision, self.language).headerValue)
        html.markup(" data-revision=\"")
        html.integer(revision)
        html.markup("\">\n<nav class=\"trip-nav\"")
        html.attribute("aria-label", words["detail.navigation"])
        html.markup("><a href=\"/trips\"><span aria-hidden=\"true\">← </span>")
        html.text(words["detail.allTrips"])
        html.markup("</a></nav>\n")
        card(sentence: sentence, words: words, into: &html)
        actions(sentence: sentence, words: words, into: &html)
        if let next {
            html.markup("<p class=\"next-trip\"><a")
            html.attribute("href", "/trips/\(next.id)")
            html.markup(">")
            html.text(words["detail.next", ["city": next.city]])
            html.markup("<span aria-hidden=\"true\"> →</span></a></p>\n")
        }
        html.markup("</main>\n")
        EditorPanel.render(words, into: &html)
        ConfirmPanel.render(words, into: &html)
        PageDocument.close(words, into: &html)
        return html.bytes
    }

    /// The card: the photo or letter beside (on a phone, above) the city, the sentence and
    /// the fields, the start date long and the price with exactly its stored digits.
    private func card(sentence: String, words: PageWords, into html: inout HTMLWriter) {
        html.markup("<article class=\"trip-card trip")
        if trip.isFavorite { html.markup(" is-favorite") }
        html.markup("\" draggable=\"true\"")
        PageDocument.tripAttributes(trip, version: version, language: words.language, into: &html)
        html.markup(">")
        PageDocument.thumbnail(trip, into: &html, large: true)
        html.markup("<div class=\"card-body\"><h1 class=\"city\">")
        html.text(trip.city)
        html.markup("</h1>\n<p class=\"sentence\">")
        html.text(sentence)
        html.markup("</p>\n<dl class=\"facts\">")
        fact(words["detail.country"], trip.country, into: &html)
        fact(words["detail.nights"], words.number(trip.nights), into: &html)
        fact(words["detail.start"], words.language.longDate(of: trip.start), into: &html)
        fact(words["detail.price"], words.price(trip.exactPrice), into: &html)
        fact(words["detail.favorite"], trip.isFavorite ? words["detail.yes"] : words["detail.no"], into: &html)
        if !trip.notes.isEmpty {
            html.markup("<dt>")
            html.text(words["detail.notes"])
            html.markup("</dt><dd class=\"notes\">")
            html.text(trip.notes)
            html.markup("</dd>")
        }
        html.markup("</dl></div>\n</article>\n")
    }

    private func fact(_ name: String, _ value: String, into html: inout HTMLWriter) {
        html.markup("<dt>")
        html.text(name)
        html.markup("</dt><dd>")
        html.text(value)
        html.markup("</dd>")
    }

    /// The lesson's toolbar: Edit, Favorite (pressed while it is one), Share (Web Share where
    /// the browser has it, copying the link otherwise) and Delete, which asks first.
    private func actions(sentence: String, words: PageWords, into html: inout HTMLWriter) {
        html.markup("<div class=\"detail-actions needs-script\" role=\"group\"")
        html.attribute("aria-label", words["detail.actions"])
        html.markup("><button type=\"button\" data-action=\"detail-edit\" aria-controls=\"editor\">")
        html.text(words["detail.edit"])
        html.markup("</button> <button type=\"button\" data-action=\"detail-favorite\"")
        html.markup(
            trip.isFavorite
                ? " aria-pressed=\"true\"><span aria-hidden=\"true\">★ </span>"
                : " aria-pressed=\"false\"><span aria-hidden=\"true\">☆ </span>")
        html.text(words["detail.favorite"])
        html.markup("</button> <button type=\"button\" id=\"share\"")
        html.attribute("data-url", url)
        html.attribute("data-title", trip.city)
        html.attribute("data-text", sentence)
        html.markup(">")
        html.text(words["detail.share"])
        html.markup("</button> <button type=\"button\" data-action=\"detail-delete\" aria-controls=\"confirm\">")
        html.text(words["detail.delete"])
        html.markup("</button></div>\n")
    }

    /// The tags a link preview reads: https://ogp.me
    private func openGraph(sentence: String, into html: inout HTMLWriter) {
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
