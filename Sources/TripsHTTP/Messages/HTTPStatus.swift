/// A response status: a three-digit code and its reason phrase.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-status-codes
package struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The three-digit status code, 100...999.
    package let code: Int
    /// The reason phrase written on the status line; clients ignore it.
    package let reasonPhrase: String

    package init(code: Int, reasonPhrase: String) {
        precondition((100...999).contains(code), "a status code has three digits")
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    package var description: String { "\(code) \(reasonPhrase)" }

    /// 1xx, 204 and 304 responses carry no content and no Content-Length.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9110#name-content-length
    package var allowsContent: Bool { code >= 200 && code != 204 && code != 304 }

    package static let `continue` = HTTPStatus(code: 100, reasonPhrase: "Continue")
    package static let ok = HTTPStatus(code: 200, reasonPhrase: "OK")
    package static let created = HTTPStatus(code: 201, reasonPhrase: "Created")
    package static let accepted = HTTPStatus(code: 202, reasonPhrase: "Accepted")
    package static let noContent = HTTPStatus(code: 204, reasonPhrase: "No Content")
    package static let partialContent = HTTPStatus(code: 206, reasonPhrase: "Partial Content")
    package static let movedPermanently = HTTPStatus(code: 301, reasonPhrase: "Moved Permanently")
    package static let seeOther = HTTPStatus(code: 303, reasonPhrase: "See Other")
    package static let notModified = HTTPStatus(code: 304, reasonPhrase: "Not Modified")
    package static let badRequest = HTTPStatus(code: 400, reasonPhrase: "Bad Request")
    package static let forbidden = HTTPStatus(code: 403, reasonPhrase: "Forbidden")
    package static let notFound = HTTPStatus(code: 404, reasonPhrase: "Not Found")
    package static let methodNotAllowed = HTTPStatus(code: 405, reasonPhrase: "Method Not Allowed")
    package static let notAcceptable = HTTPStatus(code: 406, reasonPhrase: "Not Acceptable")
    package static let requestTimeout = HTTPStatus(code: 408, reasonPhrase: "Request Timeout")
    package static let conflict = HTTPStatus(code: 409, reasonPhrase: "Conflict")
    package static let gone = HTTPStatus(code: 410, reasonPhrase: "Gone")
    package static let lengthRequired = HTTPStatus(code: 411, reasonPhrase: "Length Required")
    package static let preconditionFailed = HTTPStatus(code: 412, reasonPhrase: "Precondition Failed")
    package static let contentTooLarge = HTTPStatus(code: 413, reasonPhrase: "Content Too Large")
    package static let uriTooLong = HTTPStatus(code: 414, reasonPhrase: "URI Too Long")
    package static let unsupportedMediaType = HTTPStatus(code: 415, reasonPhrase: "Unsupported Media Type")
    package static let rangeNotSatisfiable = HTTPStatus(code: 416, reasonPhrase: "Range Not Satisfiable")
    package static let expectationFailed = HTTPStatus(code: 417, reasonPhrase: "Expectation Failed")
    package static let misdirectedRequest = HTTPStatus(code: 421, reasonPhrase: "Misdirected Request")
    package static let unprocessableContent = HTTPStatus(code: 422, reasonPhrase: "Unprocessable Content")
    package static let preconditionRequired = HTTPStatus(code: 428, reasonPhrase: "Precondition Required")
    package static let tooManyRequests = HTTPStatus(code: 429, reasonPhrase: "Too Many Requests")
    package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431, reasonPhrase: "Request Header Fields Too Large")
    package static let internalServerError = HTTPStatus(code: 500, reasonPhrase: "Internal Server Error")
    package static let notImplemented = HTTPStatus(code: 501, reasonPhrase: "Not Implemented")
    package static let serviceUnavailable = HTTPStatus(code: 503, reasonPhrase: "Service Unavailable")
    package static let httpVersionNotSupported = HTTPStatus(code: 505, reasonPhrase: "HTTP Version Not Supported")
}
