import Foundation
import TripsDomain
import TripsFormats
import TripsHTTP

/// What every page shares: the document's head (one stylesheet, one deferred script, an icon, all
/// served by this server: no inline script or style, so `Content-Security-Policy:
/// default-src 'self'` holds), and the live region where the script announces results.
enum PageDocument {
    /// Opens the document through `<body>`; `head` adds what a page needs beyond the title.
    ///
    /// The document is in the language of its sentences, and so are the page's own words
    /// (`PageWords`): `lang` on `<html>` is the only one the page needs.
    ///
    /// Every page but the one to sign in at (`offersSignIn: false`) begins with "Sign out",
    /// hidden until the script learns the browser is signed in, and that page's form, hidden
    /// until the server answers the script 401 (`SignInPage`): at the top, where both are seen.
    static func open(
        title: String, language: Language, bodyClass: StaticString, into html: inout HTMLWriter, offersSignIn: Bool = true,
        head: (inout HTMLWriter) -> Void = { _ in }
    ) {
        html.markup("<!doctype html>\n<html")
        html.attribute("lang", language.tag)
        html.markup(">\n<head>\n<meta charset=\"utf-8\">\n")
        html.markup("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        html.text(title)
        html.markup("</title>\n")
        head(&html)
        html.markup("<link rel=\"icon\" type=\"image/svg+xml\" href=\"")
        html.text(PageAsset.icon.path)
        html.markup("\">\n<link rel=\"stylesheet\" href=\"")
        html.text(PageAsset.stylesheet.path)
        html.markup("\">\n<script src=\"")
        html.text(PageAsset.words(language).path)
        html.markup("\" defer></script>\n<script src=\"")
        html.text(PageAsset.script.path)
        html.markup("\" defer></script>\n</head>\n<body class=\"")
        html.markup(bodyClass)
        html.markup("\">\n")
        if offersSignIn { html.markup(signInPanels[language.index]) }
    }

    /// Each language's hidden "Sign out" and sign-in panel, written once.
    private static let signInPanels: [[UInt8]] = Language.allCases.map { language in
        let words = PageWords.for(language)
        var html = HTMLWriter(reservingCapacity: 1024)
        SignInPage.signOut(isHidden: true, words: words, into: &html)
        SignInPage.form(next: "/trips", failed: false, isPanel: true, words: words, into: &html)
        return html.bytes
    }

    /// The progress of a large photo's upload and the status line the script announces into,
    /// then the end of the document.
    static func close(_ words: PageWords, into html: inout HTMLWriter) {
        html.markup(closings[words.language.index])
    }

    /// Each language's end of the document, written once.
    private static let closings: [[UInt8]] = Language.allCases.map { language in
        let words = PageWords.for(language)
        var html = HTMLWriter(reservingCapacity: 512)
        html.markup("<progress id=\"upload\" class=\"upload\" max=\"1\" value=\"0\"")
        html.attribute("aria-label", words["upload.label"])
        html.markup(" hidden></progress>\n")
        html.markup("<div id=\"status\" class=\"status\" role=\"status\" aria-live=\"polite\"></div>\n")
        html.markup("<footer><a href=\"/openapi.yaml\">")
        html.text(words["footer.api"])
        html.markup("</a> · ")
        html.text(words["footer.formats"])
        html.markup(" <code>curl -H 'Accept: text/plain'</code></footer>\n</body>\n</html>\n")
        return html.bytes
    }

    /// A trip's tile: its photo, or, when it has none, its initial on one of eight colours,
    /// always the same one for the same image name (or city). The large one heads a trip's
    /// page, where it is seen at once, so only the small ones load lazily.
    static func thumbnail(_ trip: Trip, into html: inout HTMLWriter, large: Bool = false) {
        if let photo = trip.photo {
            self.photo(photo, of: trip, className: large ? "thumb large" : "thumb", loadsLazily: !large, into: &html)
            return
        }
        let seed = trip.imageName.isEmpty ? trip.city : trip.imageName
        let hue = seed.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF } % 8
        html.markup(large ? "<span class=\"thumb large hue-" : "<span class=\"thumb hue-")
        html.integer(hue)
        html.markup("\" aria-hidden=\"true\">")
        html.text(trip.city.first.map(String.init) ?? "")
        html.markup("</span>")
    }

    /// A trip's photo as an `<img>`, its city as the text that stands for it. The width and
    /// height come from the photo's own header, so the browser keeps its room before it
    /// loads and nothing shifts. It does not drag by itself: a drag starts from the trip it
    /// shows, which offers the trip's representations (`trips.js`).
    static func photo(_ photo: TripPhoto, of trip: Trip, className: StaticString, loadsLazily: Bool, into html: inout HTMLWriter) {
        html.markup("<img class=\"")
        html.markup(className)
        html.markup("\"")
        html.attribute("src", photo.url)
        html.markup(" width=\"")
        html.integer(photo.width)
        html.markup("\" height=\"")
        html.integer(photo.height)
        html.markup("\"")
        html.attribute("alt", trip.city)
        html.markup(loadsLazily ? " loading=\"lazy\" decoding=\"async\" draggable=\"false\">" : " decoding=\"async\" draggable=\"false\">")
    }

    /// The attributes the script reads off an element showing a trip: its id, the strong
    /// tag a change sends as `If-Match`, and `data-trip`, the rest of its JSON (`restOfJSON`).
    static func tripAttributes(_ trip: Trip, version: UInt64, language: Language, into html: inout HTMLWriter) {
        html.markup(" data-id=\"")
        html.integer(trip.id)
        html.markup("\"")
        html.singleQuotedAttribute("data-etag", EntityTag.trip(trip.id, version: version, .html, language).headerValue)
        restOfJSON(trip).withUnsafeBufferPointer { html.singleQuotedAttribute("data-trip", utf8: $0) }
    }

    /// The members of a trip's JSON that the element showing it does not show: the element
    /// carries the id (`data-id`), the city (`.city`) and whether it is a favorite
    /// (`is-favorite`), and an empty image name, empty notes or no photo is left out. The
    /// script puts the trip's JSON together from both (`tripJSON` in trips.js) when it needs
    /// it (a drag out, the editor, an undone delete); the whole JSON on each of a long list's
    /// 200 rows weighed a quarter of the page.
    ///
    ///     {"country":"Canada","nights":3,"imageName":"vancouver","price":1299.99,"start":"2027-03-05T00:00:00Z"}
    static func restOfJSON(_ trip: Trip) -> [UInt8] {
        var json = JSONWriter()
        json.appendRaw(#"{"country":"#)
        json.appendString(trip.country)
        json.appendRaw(#","nights":"#)
        json.appendInteger(trip.nights)
        if !trip.imageName.isEmpty {
            json.appendRaw(#","imageName":"#)
            json.appendString(trip.imageName)
        }
        json.appendRaw(#","price":"#)
        json.appendRaw(trip.exactPrice.digits)
        json.appendRaw(#","start":"#)
        json.appendTimestamp(trip.start)
        if !trip.notes.isEmpty {
            json.appendRaw(#","notes":"#)
            json.appendString(trip.notes)
        }
        if let photo = trip.photo {
            json.appendRaw(#","photo":"#)
            photo.writeJSON(to: &json)
        }
        json.appendRaw("}")
        return json.bytes
    }
}
