import TripsDomain

/// A trip's actions on the list page, as the lesson keeps them: in a menu, not on the row.
///
/// Each row carries one small menu button; the menu itself is written once, after `#view`,
/// and `trips.js` moves it into the row whose button opened it (so its buttons act on that
/// trip, as every `data-action` button does) and shows Move up and Move down only where the
/// view is reorderable. It follows the WAI-ARIA menu button pattern:
/// https://www.w3.org/WAI/ARIA/apg/patterns/menu-button/
/// Without the script there is neither: every action needs it.
enum RowMenu {
    /// A row's button, named after its trip ("Actions for Vancouver").
    static func renderButton(for trip: Trip, words: PageWords, into html: inout HTMLWriter) {
        html.markup("<button type=\"button\" data-action=\"menu\" aria-haspopup=\"menu\" aria-expanded=\"false\"")
        html.attribute("aria-label", words["row.actions", ["city": trip.city]])
        html.markup(">⋯</button>")
    }

    /// The one menu, hidden until a row's button opens it. The script relabels Select and
    /// Favorite for the row it opens on (Deselect, Unfavorite).
    static func render(words: PageWords, into html: inout HTMLWriter) {
        let items: [(action: StaticString, label: String)] = [
            ("select", words["row.select"]), ("favorite", words["row.favorite"]), ("up", words["row.moveUp"]),
            ("down", words["row.moveDown"]), ("edit", words["row.edit"]), ("delete", words["row.delete"]),
        ]
        html.markup("<div id=\"row-menu\" class=\"row-menu\" role=\"menu\" hidden>\n")
        for item in items {
            html.markup("<button type=\"button\" role=\"menuitem\" tabindex=\"-1\" data-action=\"")
            html.markup(item.action)
            html.markup("\">")
            html.text(item.label)
            html.markup("</button>\n")
        }
        html.markup("</div>\n")
    }
}
