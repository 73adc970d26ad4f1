import TripsDomain

/// The page a browser gets where it must sign in first (a 401 for a page it asked for, with
/// `--private`), or at `/session`: the form that gives a token once, posted without a script
/// to `POST /session`, which sets the session cookie and sends the browser back to `next`.
/// Signed in, the page names the token and offers "Sign out".
///
/// Every other page carries the same form as a hidden panel, which `trips.js` opens when the
/// server answers 401, and a hidden "Sign out", which it shows when `GET /session` says so.
struct SignInPage {
    enum Content {
        /// The form, back to `next` once signed in; `failed` says the last token was wrong.
        case form(next: String, failed: Bool)
        case signedIn(name: String)
    }

    let content: Content
    let language: Language?

    func render() -> [UInt8] {
        var html = HTMLWriter()
        PageDocument.open(title: "Sign in · Trips", language: language ?? .english, bodyClass: "session-page", into: &html)
        html.markup("<main id=\"session\" class=\"session\">\n")
        switch content {
        case .form(let next, let failed):
            Self.form(next: next, failed: failed, isPanel: false, into: &html)
        case .signedIn(let name):
            html.markup("<h1>Signed in</h1>\n<p>")
            html.text("Signed in with the token of \(name).")
            html.markup("</p>\n")
            Self.signOut(isHidden: false, into: &html)
            html.markup("<p><a href=\"/trips\">All trips</a></p>\n")
        }
        html.markup("</main>\n")
        PageDocument.close(into: &html, offersSignIn: false)
        return html.bytes
    }

    /// The form that signs in: a page's heading (`h1`) on its own page, a panel's (`h2`,
    /// hidden until the script needs it) on every other.
    static func form(next: String, failed: Bool, isPanel: Bool, into html: inout HTMLWriter) {
        if isPanel {
            html.markup("<section id=\"sign-in\" class=\"panel\" aria-labelledby=\"sign-in-title\" hidden>\n<h2 id=\"sign-in-title\">")
        } else {
            html.markup("<h1 id=\"sign-in-title\">")
        }
        html.text("Sign in")
        html.markup(isPanel ? "</h2>\n<p>" : "</h1>\n<p>")
        html.text("This server needs one of its tokens.")
        html.markup("</p>\n")
        if failed {
            html.markup("<p class=\"problem\" role=\"alert\">")
            html.text("That token is not valid.")
            html.markup("</p>\n")
        }
        html.markup("<form id=\"sign-in-form\" class=\"sign-in\" method=\"post\" action=\"/session\">")
        html.markup("<input type=\"hidden\" name=\"next\"")
        html.attribute("value", next)
        html.markup("><label>")
        html.text("Token")
        html.markup(" <input name=\"token\" type=\"password\" autocomplete=\"current-password\" required maxlength=\"512\"></label> ")
        html.markup("<button type=\"submit\">")
        html.text("Sign in")
        html.markup("</button></form>\n")
        if isPanel { html.markup("</section>\n") }
    }

    /// "Sign out": a form, so it works without a script; hidden on the pages of the list and
    /// of a trip until the script learns that the browser is signed in.
    static func signOut(isHidden: Bool, into html: inout HTMLWriter) {
        html.markup("<form id=\"sign-out\" class=\"sign-out\" method=\"post\" action=\"/session/end\"")
        html.markup(isHidden ? " hidden>" : ">")
        html.markup("<input type=\"hidden\" name=\"next\" value=\"/trips\"><button type=\"submit\">")
        html.text("Sign out")
        html.markup("</button></form>\n")
    }
}
