import TripsFormats
import TripsHTTP

/// The form `POST /session` and `POST /session/end` read: `application/x-www-form-urlencoded`
/// as a page's `<form method="post">` sends it, with `token` (to sign in) and `next`, the page
/// of this server to go back to (a 303 there; without it, 204 for a script's `fetch`).
struct SessionForm: Sendable {
    /// The most content a form may have: 8 KiB, room for a token and a page's path each written
    /// wholly in `%XX` escapes. Past it, 413 from `Content-Length`, before the content is read.
    static let maxBytes = 8192
    /// The longest token read (after decoding); tokens are visible ASCII (`AccessTokens`).
    static let maxTokenLength = 512
    /// The longest `next`.
    static let maxNextLength = 1024

    var token: String?
    var next: String?

    /// No field: a sign-out without a form.
    init() {}

    /// Reads the request's form; 415 for another `Content-Type`, 422 for a field given twice,
    /// a token that is not up to 512 visible ASCII characters, or a `next` that is not a path
    /// of this server (`/…`, not `//…`, which a browser reads as another host).
    init(_ request: HTTPRequest) throws(APIError) {
        _ = try RequestBody.choose([MediaType.formURLEncoded], by: { $0 }, for: request)
        for item in HTTPRequest.formItems(Substring(decoding: request.body, as: UTF8.self)) {
            switch item.name {
            case "token":
                guard token == nil else { throw .invalidForm("token", "Give the token once.") }
                guard (1...Self.maxTokenLength).contains(item.value.utf8.count), Self.isVisibleASCII(item.value) else {
                    throw .invalidForm("token", "A token is 1 to \(Self.maxTokenLength) visible ASCII characters.")
                }
                token = item.value
            case "next":
                guard next == nil else { throw .invalidForm("next", "Give next once.") }
                guard Self.isOwnPath(item.value) else {
                    throw .invalidForm(
                        "next", "next is a path of this server, such as /trips, of up to \(Self.maxNextLength) visible ASCII characters.")
                }
                // As a URI reference may hold it: a raw `"` or `<` would end the `Location` or
                // `href` it is copied into.
                next = HTTPRequest.uriEncodedQuery(item.value)
            default:
                continue  // a field some page adds (a button's name) is none of ours
            }
        }
    }

    /// `/trips?q=x`, not `//attacker.example` or `/\attacker.example` (another host to a
    /// browser), nor `https://…`: what a 303 may send a browser to.
    static func isOwnPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard (1...maxNextLength).contains(bytes.count), bytes[0] == UInt8(ascii: "/"), isVisibleASCII(path) else { return false }
        return bytes.count == 1 || (bytes[1] != UInt8(ascii: "/") && bytes[1] != UInt8(ascii: "\\"))
    }

    private static func isVisibleASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}

extension APIError {
    /// 422 for a form field at fault.
    static func invalidForm(_ field: String, _ detail: String) -> APIError {
        var error = APIError(.unprocessableContent, detail, type: .invalidForm)
        error.member = field
        return error
    }
}
