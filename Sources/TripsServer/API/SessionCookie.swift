import TripsHTTP

/// The cookie that carries a browser's session (RFC 6265): the `Set-Cookie` that begins it and
/// the one that ends it, and its value read back from `Cookie`.
///
///     trips-session=<id>.<signature>; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict
///
/// `HttpOnly`: no script reads it. `SameSite=Strict`: the browser sends it on this site's own
/// requests only. `Secure` only when the browser said, in the sign-in's `Origin`, that its page
/// is on `https://` (behind a proxy that ends TLS): the server itself speaks plain HTTP, and
/// it trusts no proxy's header (`X-Forwarded-Proto`) anywhere, so over plain HTTP the cookie
/// is never `Secure`, or the browser would not keep it.
enum SessionCookie {
    static let name = "trips-session"
    /// The most bytes of `Cookie` fields read, all together: 8 KiB, what browsers send at most
    /// for one site. A request with more is read as carrying no session.
    static let maxFieldBytes = 8192

    /// `Set-Cookie` for a session that lasts `lifetime`.
    static func beginning(_ value: String, lifetime: Duration, isSecure: Bool) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(lifetime.components.seconds); HttpOnly; SameSite=Strict" + (isSecure ? "; Secure" : "")
    }

    /// `Set-Cookie` that takes the cookie out of the browser.
    static func ending(isSecure: Bool) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (isSecure ? "; Secure" : "")
    }

    /// Whether the request came from a page on `https://`, as its `Origin` says.
    static func isSecure(_ request: HTTPRequest) -> Bool {
        request.headerFields[.origin]?.utf8.starts(with: "https://".utf8) ?? false
    }

    /// The value of every `trips-session` pair of the request's `Cookie` fields, in order
    /// (a browser may send two, set for different paths); none when the fields hold more than
    /// `maxFieldBytes`. A cookie-string is pairs split by `;` and a space (RFC 6265 §4.2.1),
    /// several fields are read as one; other cookies are skipped whatever they hold, and a
    /// pair of ours is taken as it is written, quotes and all, for `BrowserSessions` to refuse.
    static func values(in request: HTTPRequest) -> [Substring] {
        let fields = request.headerFields.values(for: .cookie)
        guard !fields.isEmpty, fields.reduce(0, { $0 + $1.utf8.count }) <= maxFieldBytes else { return [] }
        var values: [Substring] = []
        for field in fields {
            for pair in field.split(separator: ";") {
                let pair = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = pair.firstIndex(of: "="), pair[..<equals] == name else { continue }
                var value = pair[pair.index(after: equals)...]
                while value.last == " " || value.last == "\t" { value.removeLast() }
                values.append(value)
            }
        }
        return values
    }
}
