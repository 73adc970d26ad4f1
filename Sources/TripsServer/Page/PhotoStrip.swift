import TripsDomain

/// The lesson's PhotoStrip: the photos of the trips a view shows, in its order, above the
/// list. Each is a button that `trips.js` enlarges in the viewer (a `<dialog>`: Escape
/// closes it) and that drags as its trip, onto the Favorites chip or out to another app.
enum PhotoStrip {
    /// The strip, or nothing when none of the trips has a photo.
    static func render(_ trips: [Trip], _ words: PageWords, into html: inout HTMLWriter) {
        guard trips.contains(where: { $0.photo != nil }) else { return }
        html.markup("<section")
        html.attribute("aria-label", words["photos.label"])
        html.markup(">\n<ul class=\"strip-photos\">\n")
        for trip in trips {
            guard let photo = trip.photo else { continue }
            html.markup("<li><button type=\"button\" class=\"strip-photo\" data-action=\"enlarge\" draggable=\"true\" data-id=\"")
            html.integer(trip.id)
            html.markup("\">")
            PageDocument.photo(photo, of: trip, className: "", loadsLazily: true, into: &html)
            html.markup("</button></li>\n")
        }
        html.markup("</ul>\n</section>\n")
    }

    /// Where a strip photo is shown large with its city. Written once after `#view`, like the
    /// forms, so a refresh of the list (a change made elsewhere) does not close it.
    static func renderViewer(_ words: PageWords, into html: inout HTMLWriter) {
        html.markup(
            """
            <dialog id="photo-viewer" class="photo-viewer" aria-labelledby="photo-viewer-city">
            <figure><img alt=""><figcaption id="photo-viewer-city"></figcaption></figure>
            <form method="dialog"><button type="submit">
            """)
        html.text(words["photos.close"])
        html.markup("</button></form>\n</dialog>\n")
    }
}
