import TripsDomain

/// The page a browser gets where it must sign in first (the 401 for a page it asked for,
/// with `--private`), or at `/session`: the form that gives a token once, posted without a
/// script to `POST /session`, which sets the session cookie and sends the browser back to
/// `next`. Signed in, the page names the token and offers "Sign out".
///
/// Every other page carries the same form as a hidden panel, which `trips.js` opens when the
/// server answers 401, and a hidden "Sign out", which it shows when `GET /session` says so
/// (`PageDocument.open`).
struct SignInPage {
    enum Content {
        /// The form, back to `next` once signed in; `failed` says the last token was wrong.
        case form(next: String, failed: Bool)
        /// Signed in with the token named `name`.
        case signedIn(name: String)
    }

    let content: Content
    let language: Language?

    func render() -> [UInt8] {
        let words = PageWords.for(language ?? .english)
        var html = HTMLWriter()
        PageDocument.open(
            title: "\(words["signin.title"]) · \(words["list.title"])", language: language ?? .english, bodyClass: "session-page",
            into: &html, offersSignIn: false)
        html.markup("<main id=\"session\" class=\"session\">\n")
        switch content {
        case .form(let next, let failed):
            Self.form(next: next, failed: failed, isPanel: false, words: words, into: &html)
        case .signedIn(let name):
            html.markup("<h1>")
            html.text(words["signin.done"])
            html.markup("</h1>\n<p>")
            html.text(words["signin.signedIn", ["name": name]])
            html.markup("</p>\n")
            Self.signOut(isHidden: false, words: words, into: &html)
            html.markup("<p><a href=\"/trips\">")
            html.text(words["signin.toTrips"])
            html.markup("</a></p>\n")
        }
        html.markup("</main>\n")
        PageDocument.close(words, into: &html)
        return html.bytes
    }

    /// The form that signs in: the page's heading (`h1`) on its own page; on every other, a
    /// panel's (`h2`), hidden until the script needs it.
    static func form(next: String, failed: Bool, isPanel: Bool, words: PageWords, into html: inout HTMLWriter) {
        html.markup(
            isPanel
                ? "<section id=\"sign-in\" class=\"panel\" aria-labelledby=\"sign-in-title\" hidden>\n<h2 id=\"sign-in-title\">"
                : "<h1 id=\"sign-in-title\">")
        html.text(words["signin.title"])
        html.markup(isPanel ? "</h2>\n<p>" : "</h1>\n<p>")
        html.text(words["signin.intro"])
        html.markup("</p>\n")
        if failed {
            html.markup("<p class=\"problem\" role=\"alert\">")
            html.text(words["signin.invalid"])
            html.markup("</p>\n")
        }
        html.markup("<form id=\"sign-in-form\" class=\"sign-in\" method=\"post\" action=\"/session\">")
        html.markup("<input type=\"hidden\" name=\"next\"")
        html.attribute("value", next)
        html.markup("><label>")
        html.text(words["signin.token"])
        html.markup(" <input name=\"token\" type=\"password\" autocomplete=\"current-password\" required maxlength=\"512\"></label> ")
        html.markup("<button type=\"submit\">")
        html.text(words["signin.submit"])
        html.markup("</button></form>\n")
        if isPanel { html.markup("</section>\n") }
    }

    /// "Sign out": a form, so it works without a script, named so that it is a landmark of its
    /// own; hidden on the other pages until the script learns the browser is signed in.
    static func signOut(isHidden: Bool, words: PageWords, into html: inout HTMLWriter) {
        html.markup("<form id=\"sign-out\" class=\"sign-out\" method=\"post\" action=\"/session/end\"")
        html.attribute("aria-label", words["signin.signOut"])
        html.markup(isHidden ? " hidden>" : ">")
        html.markup("<input type=\"hidden\" name=\"next\" value=\"/trips\"><button type=\"submit\">")
        html.text(words["signin.signOut"])
        html.markup("</button></form>\n")
    }
}
