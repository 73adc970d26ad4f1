/// A response status: a three-digit code and its reason phrase.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-status-codes
struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The three-digit status code, 100...999.
    let code: Int
    /// The reason phrase written on the status line; clients ignore it.
    let reasonPhrase: String

    init(code: Int, reasonPhrase: String) {
        precondition((100...999).contains(code), "a status code has three digits")
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    var description: String { "\(code) \(reasonPhrase)" }

    /// 1xx, 204 and 304 responses carry no content and no Content-Length.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9110#name-content-length
    var allowsContent: Bool { code >= 200 && code != 204 && code != 304 }

    static let `continue` = HTTPStatus(code: 100, reasonPhrase: "Continue")
    static let ok = HTTPStatus(code: 200, reasonPhrase: "OK")
    static let created = HTTPStatus(code: 201, reasonPhrase: "Created")
    static let accepted = HTTPStatus(code: 202, reasonPhrase: "Accepted")
    static let noContent = HTTPStatus(code: 204, reasonPhrase: "No Content")
    static let movedPermanently = HTTPStatus(code: 301, reasonPhrase: "Moved Permanently")
    static let seeOther = HTTPStatus(code: 303, reasonPhrase: "See Other")
    static let notModified = HTTPStatus(code: 304, reasonPhrase: "Not Modified")
    static let badRequest = HTTPStatus(code: 400, reasonPhrase: "Bad Request")
    static let forbidden = HTTPStatus(code: 403, reasonPhrase: "Forbidden")
    static let notFound = HTTPStatus(code: 404, reasonPhrase: "Not Found")
    static let methodNotAllowed = HTTPStatus(code: 405, reasonPhrase: "Method Not Allowed")
    static let notAcceptable = HTTPStatus(code: 406, reasonPhrase: "Not Acceptable")
    static let requestTimeout = HTTPStatus(code: 408, reasonPhrase: "Request Timeout")
    static let conflict = HTTPStatus(code: 409, reasonPhrase: "Conflict")
    static let gone = HTTPStatus(code: 410, reasonPhrase: "Gone")
    static let lengthRequired = HTTPStatus(code: 411, reasonPhrase: "Length Required")
    static let preconditionFailed = HTTPStatus(code: 412, reasonPhrase: "Precondition Failed")
    static let contentTooLarge = HTTPStatus(code: 413, reasonPhrase: "Content Too Large")
    static let uriTooLong = HTTPStatus(code: 414, reasonPhrase: "URI Too Long")
    static let unsupportedMediaType = HTTPStatus(code: 415, reasonPhrase: "Unsupported Media Type")
    static let expectationFailed = HTTPStatus(code: 417, reasonPhrase: "Expectation Failed")
    static let misdirectedRequest = HTTPStatus(code: 421, reasonPhrase: "Misdirected Request")
    static let unprocessableContent = HTTPStatus(code: 422, reasonPhrase: "Unprocessable Content")
    static let preconditionRequired = HTTPStatus(code: 428, reasonPhrase: "Precondition Required")
    static let tooManyRequests = HTTPStatus(code: 429, reasonPhrase: "Too Many Requests")
    static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431, reasonPhrase: "Request Header Fields Too Large")
    static let internalServerError = HTTPStatus(code: 500, reasonPhrase: "Internal Server Error")
    static let notImplemented = HTTPStatus(code: 501, reasonPhrase: "Not Implemented")
    static let serviceUnavailable = HTTPStatus(code: 503, reasonPhrase: "Service Unavailable")
    static let httpVersionNotSupported = HTTPStatus(code: 505, reasonPhrase: "HTTP Version Not Supported")
}
