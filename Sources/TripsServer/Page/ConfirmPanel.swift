import TripsDomain

/// "Delete …? This cannot be undone.": what a delete asks first, the same on the list page and
/// on the trip page. Hidden until the script opens it (`askToDelete` in trips.js), which names
/// the trips in its title; Delete deletes, Cancel keeps them. Without the script it stays hidden
/// (`needs-script`), as every change needs the script.
enum ConfirmPanel {
    /// The confirmation in the page's language, written once per language.
    static func render(_ words: PageWords, into html: inout HTMLWriter) {
        html.markup(written[words.language.index])
    }

    private static let written: [[UInt8]] = Language.allCases.map { language in
        let words = PageWords.for(language)
        var html = HTMLWriter(reservingCapacity: 512)
        html.markup("<section id=\"confirm\" class=\"panel warning needs-script\" role=\"alertdialog\" ")
        html.markup("aria-labelledby=\"confirm-title\" aria-describedby=\"confirm-text\" hidden>\n<h2 id=\"confirm-title\">")
        html.text(words["confirm.title"])
        html.markup("</h2>\n<p id=\"confirm-text\">")
        html.text(words["confirm.warning"])
        html.markup("</p>\n<button type=\"button\" data-action=\"confirm-delete\">")
        html.text(words["confirm.delete"])
        html.markup("</button> <button type=\"button\" data-action=\"cancel-delete\">")
        html.text(words["form.cancel"])
        html.markup("</button>\n</section>\n")
        return html.bytes
    }
}
