import Foundation
import TripsDomain

/// The forms the script drives, written once into every list page after `#view` (so a
/// refresh of the list never loses what someone is typing): add a trip with fields (and the
/// photo dropped between two trips, shown before it is sent) or in one sentence, edit one,
/// confirm a delete. (Signing in is every page's: `PageDocument.open`.)
/// Without the script they stay hidden (`html:not(.js) .needs-script`).
enum TripForms {
    /// The forms in the page's language. They depend on nothing else, so each language's
    /// are written once, not on every page.
    static func render(_ words: PageWords, into html: inout HTMLWriter) {
        html.markup(written[words.language.index])
    }

    private static let written: [[UInt8]] = Language.allCases.map { language in
        var html = HTMLWriter()
        write(PageWords.for(language), into: &html)
        return html.bytes
    }

    private static func write(_ words: PageWords, into html: inout HTMLWriter) {
        html.markup("<section id=\"add\" class=\"panel needs-script\" aria-labelledby=\"add-title\">\n<h2 id=\"add-title\">")
        html.text(words["form.add.title"])
        html.markup("</h2>\n<form id=\"add-form\" class=\"trip-form\">\n")
        draftFields(words, into: &html)
        html.markup("<figure id=\"add-photo\" class=\"attached-photo wide\" hidden><img")
        html.attribute("alt", words["form.photo.alt"])
        html.markup(">\n<figcaption><span id=\"add-photo-where\"></span> <button type=\"button\" data-action=\"detach-photo\">")
        html.text(words["form.photo.remove"])
        html.markup("</button></figcaption></figure>\n<label class=\"check\"><input name=\"isFavorite\" type=\"checkbox\"> ")
        html.text(words["form.favorite"])
        html.markup("</label>\n<button type=\"submit\">")
        html.text(words["form.add.submit"])
        html.markup("</button>\n</form>\n<form id=\"sentence-form\" class=\"sentence-form\">\n<label>")
        html.text(words["form.sentence.label"])
        html.markup(" <input name=\"sentence\"")
        html.attribute("placeholder", exampleSentence(words))
        html.markup(" required></label>\n<button type=\"submit\">")
        html.text(words["form.sentence.submit"])
        html.markup("</button>\n</form>\n</section>\n")

        html.markup("<section id=\"editor\" class=\"panel\" aria-labelledby=\"edit-title\" hidden>\n<h2 id=\"edit-title\">")
        html.text(words["form.edit.title"])
        html.markup("</h2>\n<form id=\"edit-form\" class=\"trip-form\">\n")
        draftFields(words, into: &html)
        html.markup("<button type=\"submit\">")
        html.text(words["form.edit.save"])
        html.markup("</button> <button type=\"button\" data-action=\"cancel-edit\">")
        html.text(words["form.cancel"])
        html.markup("</button>\n</form>\n</section>\n")

        html.markup(
            "<section id=\"confirm\" class=\"panel warning\" role=\"alertdialog\" aria-labelledby=\"confirm-title\" aria-describedby=\"confirm-text\" hidden>\n<h2 id=\"confirm-title\">"
        )
        html.text(words["confirm.title"])
        html.markup("</h2>\n<p id=\"confirm-text\">")
        html.text(words["confirm.warning"])
        html.markup("</p>\n<button type=\"button\" data-action=\"confirm-delete\">")
        html.text(words["confirm.delete"])
        html.markup("</button> <button type=\"button\" data-action=\"cancel-delete\">")
        html.text(words["form.cancel"])
        html.markup("</button>\n</section>\n")
    }

    /// A draft's fields, as the add and the edit forms both ask for them (the limits are the
    /// API's, so a browser checks them before sending). The values are data, not words: the
    /// price is typed as the API reads it (`1499.5`), whatever the language.
    static func draftFields(_ words: PageWords, into html: inout HTMLWriter) {
        field(words["form.city"], #"<input name="city" required maxlength="200" autocomplete="off">"#, into: &html)
        field(words["form.country"], #"<input name="country" required maxlength="200" autocomplete="off">"#, into: &html)
        field(words["form.nights"], #"<input name="nights" type="number" min="1" max="365" value="3" required>"#, into: &html)
        field(words["form.start"], #"<input name="start" type="date" required>"#, into: &html)
        field(
            words["form.price"], #"<input name="price" inputmode="decimal" value="0" pattern="[0-9]+([.][0-9]+)?" required>"#,
            into: &html)
        html.markup("<label class=\"wide\">")
        html.text(words["form.notes"])
        html.markup(" <textarea name=\"notes\" rows=\"2\" maxlength=\"10000\"></textarea></label>\n")
    }

    /// A label: its words, then its input.
    private static func field(_ label: String, _ input: StaticString, into html: inout HTMLWriter) {
        html.markup("<label>")
        html.text(label)
        html.markup(" ")
        html.markup(input)
        html.markup("</label>\n")
    }

    /// What to type in the sentence form: a trip's sentence as this language writes it
    /// ("Lizbona, Portugalia: 4 noce od 1 maja 2027"), which the form reads back.
    private static func exampleSentence(_ words: PageWords) -> String {
        Trip.sentence(
            city: words["form.sentence.city"], country: words["form.sentence.country"], nights: 4,
            start: exampleStart, in: words.language)
    }

    /// May 1, 2027, at midnight UTC.
    private static let exampleStart = Date(timeIntervalSince1970: 1_809_129_600)
}
