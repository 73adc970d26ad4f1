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
    /// The line of a text body at fault (the first, when several are).
    var line: Int?
    /// Every rule a body breaks (422), the first of which `member` or `line` names.
    var errors: [Fault]?

    init(_ status: HTTPStatus, _ detail: String) {
        self.status = status
        self.detail = detail
    }

    /// Where in a body one broken rule sits, and what it is: an entry of a problem
    /// document's `errors`.
    struct Fault: Sendable, Hashable {
        /// The member at fault: `nights`, or `[1].nights` in an array of trips.
        var member: String?
        /// The line of a text body at fault, counting from 1.
        var line: Int?
        var detail: String
    }

    /// A domain refusal: 400 when the body cannot be read at all, 422 when it can but
    /// breaks rules (every one listed in `errors`, the first also in `member` or `line`),
    /// and 404 when the one trip the path names is gone.
    init(_ error: TripsError, pathID: Int? = nil) {
        let faults = error.flattened
        let first = faults[0]
        switch first.innermost {
        case .malformedJSON, .malformedText:
            self.init(.badRequest, error.description)
        case .unknownTrips(let ids) where pathID != nil && ids == [pathID] && faults.count == 1:
            self.init(.notFound, error.description)
        default:
            self.init(.unprocessableContent, error.description)
            ids = first.innermost.namedIDs
            errors = faults.map(\.fault)
            member = errors?.first?.member
            line = errors?.first?.line
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
        if let line {
            writer.appendRaw(#","line":"#)
            writer.appendInteger(line)
        }
        if let errors {
            writer.appendRaw(#","errors":["#)
            for (index, fault) in errors.enumerated() {
                writer.appendRaw(index == 0 ? "{" : ",{")
                if let member = fault.member {
                    writer.appendRaw(#""member":"#)
                    writer.appendString(member)
                    writer.appendRaw(",")
                }
                if let line = fault.line {
                    writer.appendRaw(#""line":"#)
                    writer.appendInteger(line)
                    writer.appendRaw(",")
                }
                writer.appendRaw(#""detail":"#)
                writer.appendString(fault.detail)
                writer.appendRaw("}")
            }
            writer.appendRaw("]")
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

extension TripsError {
    /// The error inside any line or element it is wrapped in.
    var innermost: TripsError {
        switch self {
        case .onLine(_, let error), .inElement(_, let error): error.innermost
        default: self
        }
    }

    /// The trip ids the error names: unknown ones, a missing destination, or the trips an
    /// ambiguous name matched.
    var namedIDs: [Int]? {
        switch self {
        case .unknownTrips(let ids): ids
        case .unknownDestination(let id): [id]
        case .ambiguousName(_, let candidates): candidates
        default: nil
        }
    }

    /// One flattened error as an entry of a problem document's `errors`.
    var fault: APIError.Fault {
        switch self {
        case .onLine(let line, let error):
            var fault = error.fault
            fault.line = line
            fault.detail = description
            return fault
        case .inElement(let index, let error):
            var fault = error.fault
            fault.member = "[\(index)]" + (fault.member.map { ".\($0)" } ?? "")
            fault.detail = description
            return fault
        case .invalidMember(let name, _), .unknownMember(let name):
            return APIError.Fault(member: name, detail: description)
        case .unknownDestination:
            return APIError.Fault(member: "destination", detail: description)
        case .emptySources:
            return APIError.Fault(member: "sources", detail: description)
        default:
            return APIError.Fault(detail: description)
        }
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
