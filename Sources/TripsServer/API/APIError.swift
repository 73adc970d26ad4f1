import TripsDomain

/// An error the API answers with: a status, a sentence that says what was wrong, and
/// members that help a client act on it (the unknown ids, the member at fault).
///
/// Every error becomes a response here and nowhere else: a problem document
/// (RFC 9457, `application/problem+json`), or a plain sentence for clients that
/// prefer `text/plain`.
struct APIError: Error, Sendable {
    var status: HTTPStatus
    var detail: String
    /// Fields the response must carry, such as `Allow` with a 405.
    var headerFields: HTTPFields = [:]
    /// The body member at fault (`nights`, `sources`).
    var member: String?
    /// Trip ids the request named that the list does not have, or that a name matched.
    var ids: [Int]?
    /// The media types that would have worked (406, 415).
    var available: [String]?

    init(_ status: HTTPStatus, _ detail: String) {
        self.status = status
        self.detail = detail
    }

    /// A domain refusal: 400 when the body cannot be read at all, 422 when it can but
    /// breaks a rule, and 404 when the one trip the path names is gone.
    init(_ error: TripsError, pathID: Int? = nil) {
        switch error {
        case .malformedJSON, .malformedText:
            self.init(.badRequest, error.description)
        case .unknownTrips(let ids) where pathID != nil && ids == [pathID]:
            self.init(.notFound, error.description)
        case .unknownTrips(let ids):
            self.init(.unprocessableContent, error.description)
            self.ids = ids
        case .invalidMember(let name, _), .unknownMember(let name):
            self.init(.unprocessableContent, error.description)
            member = name
        case .unknownDestination(let id):
            self.init(.unprocessableContent, error.description)
            member = "destination"
            ids = [id]
        case .emptySources:
            self.init(.unprocessableContent, error.description)
            member = "sources"
        case .ambiguousName(_, let candidates):
            self.init(.unprocessableContent, error.description)
            ids = candidates
        case .invalidBody, .noTripNamed, .unreadableSentence:
            self.init(.unprocessableContent, error.description)
        }
    }

    static func notFound(_ path: String) -> APIError {
        APIError(.notFound, "There is nothing at \(path).")
    }

    static func methodNotAllowed(_ method: HTTPMethod, _ route: Route) -> APIError {
        var error = APIError(.methodNotAllowed, "\(method) is not allowed here.")
        error.headerFields[.allow] = route.allowedMethods.map(\.rawValue).joined(separator: ", ")
        return error
    }

    static func notAcceptable(_ offered: [MediaType]) -> APIError {
        var error = APIError(.notAcceptable, "This resource is available as \(offered.map(\.description).joined(separator: " or ")).")
        error.available = offered.map(\.description)
        return error
    }

    static let preconditionFailed = APIError(.preconditionFailed, "If-Match names no current representation: the resource has changed.")

    /// The error as a response, in the form the client prefers.
    func response(accept: [String]) -> HTTPResponse {
        var fields = headerFields
        fields[.vary] = "Accept"
        // The same rule as for resources, JSON first on ties: a problem document counts as
        // JSON, so `Accept: application/json, text/plain;q=0.5` gets it. When neither form is
        // acceptable the client still gets the document rather than a 406 in place of the error.
        let prefersText = ContentNegotiation.choose([.problemJSON, .plainText], accept: accept) == 1
        if prefersText {
            fields[.contentType] = "text/plain; charset=utf-8"
            return HTTPResponse(status: status, headerFields: fields, body: Array("\(status.code) \(status.reasonPhrase): \(detail)\n".utf8))
        }
        var writer = JSONWriter()
        writer.appendRaw(#"{"type":"about:blank","title":"#)
        writer.appendString(status.reasonPhrase)
        writer.appendRaw(#","status":"#)
        writer.appendInteger(status.code)
        writer.appendRaw(#","detail":"#)
        writer.appendString(detail)
        if let member {
            writer.appendRaw(#","member":"#)
            writer.appendString(member)
        }
        if let ids {
            writer.appendRaw(#","ids":["#)
            writer.appendRaw(ids.map(String.init).joined(separator: ","))
            writer.appendRaw("]")
        }
        if let available {
            writer.appendRaw(#","available":["#)
            for (index, type) in available.enumerated() {
                if index > 0 { writer.appendRaw(",") }
                writer.appendString(type)
            }
            writer.appendRaw("]")
        }
        writer.appendRaw("}")
        fields[.contentType] = "application/problem+json"
        return HTTPResponse(status: status, headerFields: fields, body: writer.bytes)
    }
}

extension HTTPStatus {
    /// https://www.rfc-editor.org/rfc/rfc4918#section-11.5
    static let insufficientStorage = HTTPStatus(code: 507, reasonPhrase: "Insufficient Storage")
}

extension MediaType {
    static let problemJSON = MediaType(type: "application", subtype: "problem+json")
    static let mergePatchJSON = MediaType(type: "application", subtype: "merge-patch+json")

    /// The `Content-Type` value the server writes for a representation in this type.
    var contentTypeValue: String {
        self == .plainText ? "text/plain; charset=utf-8" : description
    }
}
