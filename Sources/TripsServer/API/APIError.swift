import TripsDomain
import TripsFormats
import TripsHTTP

/// An error the API answers with: a status, its kind (`type`), a sentence that says what
/// was wrong, and members that help a client act on it (the unknown ids, the member at fault). It is
/// written as a response by `ProblemDetails`, like every other error.
struct APIError: Error, Sendable {
    var status: HTTPStatus
    var detail: String
    /// The kind of refusal: the status's usual one unless the thrower names another.
    var type: ProblemType
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
    /// The list's current revision, where the client must catch up from it (410).
    var revision: UInt64?

    init(_ status: HTTPStatus, _ detail: String, type: ProblemType? = nil) {
        self.status = status
        self.detail = detail
        self.type = type ?? .usual(for: status)
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

    /// The most broken rules a 422 lists, in `errors` and in `detail`; those past them are
    /// counted. A body of new trips stops being checked after `BrokenRules.limit` (100), but
    /// a list of valid drafts can still break a few rules each (their lengths in code points).
    static let maxListedFaults = 200

    /// A domain refusal: 400 when the body cannot be read at all, 422 when it can but
    /// breaks rules (listed in `errors`, up to `maxListedFaults`, the first also in `member`
    /// or `line`), and 404 when the one trip the path names is gone.
    init(_ error: TripsError, pathID: Int? = nil) {
        let faults = error.flattened
        let first = faults[0]
        switch first.innermost {
        case .malformedJSON, .malformedText:
            self.init(.badRequest, error.description, type: .malformedContent)
        case .unknownTrips(let ids) where pathID != nil && ids == [pathID] && faults.count == 1:
            self.init(.notFound, error.description)
        default:
            let namesUnknownTrips =
                switch first.innermost {
                case .unknownTrips, .unknownDestination: true
                default: false
                }
            let listed = faults.prefix(Self.maxListedFaults)
            let unlisted = faults.count - listed.count
            let detail =
                unlisted == 0
                ? error.description : listed.map(\.description).joined(separator: "; ") + "; and \(unlisted) more"
            self.init(.unprocessableContent, detail, type: namesUnknownTrips ? .unknownIDs : .invalidDraft)
            ids = first.innermost.namedIDs
            errors = listed.map(\.fault)
            member = errors?.first?.member
            line = errors?.first?.line
        }
    }

    static func notFound(_ path: String) -> APIError {
        APIError(.notFound, "There is nothing at \(path).")
    }

    static func methodNotAllowed(_ method: HTTPMethod, _ resource: RouteTable.Resource) -> APIError {
        var error = APIError(.methodNotAllowed, "\(method) is not allowed here.")
        error.headerFields[.allow] = resource.allowedMethods.map(\.rawValue).joined(separator: ", ")
        return error
    }

    static func notAcceptable(_ offered: [MediaType]) -> APIError {
        var error = APIError(.notAcceptable, "This resource is available as \(offered.map(\.description).joined(separator: " or ")).")
        error.available = offered.map(\.description)
        return error
    }

    static let preconditionFailed = APIError(.preconditionFailed, "If-Match names no current representation: the resource has changed.")

    /// The error as a response, in the form the client prefers; `requestID` becomes the
    /// problem's `instance`.
    func response(accept: [String], requestID: IssuedRequestID?) -> HTTPResponse {
        var problem = ProblemDetails(status, detail, type: type)
        problem.headerFields = headerFields
        if let member { problem.extensions.append(("member", .string(member))) }
        if let line { problem.extensions.append(("line", .number(String(line)))) }
        if let errors {
            problem.extensions.append(("errors", .array(errors.map(\.jsonValue))))
        }
        if let ids { problem.extensions.append(("ids", .array(ids.map { .number(String($0)) }))) }
        if let available { problem.extensions.append(("available", .array(available.map(JSONValue.string)))) }
        if let revision {
            problem.extensions.append(("revision", .number(String(revision))))
            problem.headerFields[.tripsRevision] = String(revision)
        }
        return problem.response(accept: accept, instance: requestID?.text)
    }
}

extension APIError.Fault {
    /// `{"member": …, "line": …, "detail": …}`, without what it lacks.
    var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["detail": .string(detail)]
        if let member { members["member"] = .string(member) }
        if let line { members["line"] = .number(String(line)) }
        return .object(members)
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
