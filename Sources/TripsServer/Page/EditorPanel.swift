import TripsDomain

/// The editor of a trip, the same on the list page and on the trip page: hidden until the
/// script opens it on a trip and fills it from the trip's element (`edit` in trips.js), after
/// `#view` (so a refresh never loses what someone is typing). Its fields are the add form's
/// (`TripForms.draftFields`). Without the script it stays hidden (`needs-script`).
enum EditorPanel {
    /// The editor in the page's language. It depends on nothing else, so each language's is
    /// written once, not on every page.
    static func render(_ words: PageWords, into html: inout HTMLWriter) {
        html.markup(written[words.language.index])
    }

    private static let written: [[UInt8]] = Language.allCases.map { language in
        let words = PageWords.for(language)
        var html = HTMLWriter(reservingCapacity: 1536)
        html.markup("<section id=\"editor\" class=\"panel needs-script\" aria-labelledby=\"edit-title\" hidden>\n<h2 id=\"edit-title\">")
        html.text(words["form.edit.title"])
        html.markup("</h2>\n<form id=\"edit-form\" class=\"trip-form\">\n")
        TripForms.draftFields(words, into: &html)
        html.markup("<p class=\"form-buttons wide\"><button type=\"submit\">")
        html.text(words["form.edit.save"])
        html.markup("</button> <button type=\"button\" data-action=\"cancel-edit\">")
        html.text(words["form.cancel"])
        html.markup("</button></p>\n</form>\n</section>\n")
        return html.bytes
    }
}
