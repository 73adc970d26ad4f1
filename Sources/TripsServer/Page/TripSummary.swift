import TripsDomain

/// The lesson's `TripSummary` above the list: how many trips the view shows, how many nights
/// they add up to and how many are favorites ("6 trips", "21 nights", "2 favorites"), counted
/// over the whole view (All, Favorites, a country, a search), not the rows of one page.
enum TripSummary {
    static func render(_ totals: TripTotals, words: PageWords, into html: inout HTMLWriter) {
        html.markup("<ul id=\"trip-summary\" class=\"trip-summary\"")
        html.attribute("aria-label", words["summary.label"])
        html.markup("><li>")
        html.text(words.counted("list.count", totals.trips))
        html.markup("</li><li>")
        html.text(words.counted("summary.nights", totals.nights))
        html.markup("</li><li>")
        html.text(words.counted("summary.favorites", totals.favorites))
        html.markup("</li></ul>\n")
    }
}
