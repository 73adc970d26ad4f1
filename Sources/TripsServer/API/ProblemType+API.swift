import TripsDomain
import TripsFormats
import TripsHTTP

/// The kinds of refusal the API answers with, beside the HTTP layer's own (`ProblemType`).
/// `ProblemType.all` lists every one; openapi.yaml's `Problem.type` enumerates their URIs,
/// and `GET /problems/{kind}` describes each (`OpenAPIDriftTests` and `ProblemTypeTests`
/// keep the three in step).
extension ProblemType {
    static let malformedContent = ProblemType(
        "malformed-content",
        "The content cannot be read as the media type it was sent as (JSON that does not parse, say). Fix it before sending it again.")
    static let invalidDraft = ProblemType(
        "invalid-draft",
        "The content reads, but breaks the rules for a trip or a change: `errors` lists every rule broken, `member` or `line` the first. Fix those and send it again."
    )
    static let unknownIDs = ProblemType(
        "unknown-ids",
        "The request names trips the list does not have (deleted, or never made): `ids` lists them. Read the list again and name trips it has."
    )
    static let invalidPhoto = ProblemType(
        "invalid-photo",
        "The photo is empty, cut short, too large on a side, or not an image of the type it was sent as.")
    static let invalidForm = ProblemType(
        "invalid-form", "The form lacks a field or has one that is wrong: `member` names it.")
    static let unauthorized = ProblemType(
        "unauthorized",
        "The request needs a token (Authorization: Bearer) or a session, and had none that this server knows. `WWW-Authenticate` says which."
    )
    static let forbidden = ProblemType(
        "forbidden",
        "The request is refused whatever its credentials: a change made from another site's page, or with a session cookie from another origin."
    )
    static let notFound = ProblemType(
        "not-found", "Nothing is at this path: no such route, trip, photo or kind of problem, or it was deleted.")
    static let methodNotAllowed = ProblemType(
        "method-not-allowed", "The resource does not answer this method; `Allow` lists those it does.")
    static let notAcceptable = ProblemType(
        "not-acceptable",
        "The resource has no representation the request's Accept takes; `available` lists the media types it has.")
    static let idempotencyConflict = ProblemType(
        "idempotency-conflict",
        "The first request with this Idempotency-Key is still being made. Send it again once that one is answered: the same answer comes back."
    )
    static let changesExpired = ProblemType(
        "changes-expired",
        "The change feed no longer keeps the changes after that revision, or the revision is ahead of the list. Read the list again, then follow the changes from its Trips-Revision."
    )
    static let staleIfMatch = ProblemType(
        "stale-if-match",
        "If-Match names a representation that is no longer current: someone changed the resource since it was read. Read it again, then decide."
    )
    static let unsupportedMediaType = ProblemType(
        "unsupported-media-type",
        "The content's media type (or coding) is not one this operation reads: `available` lists the ones it does, as Accept-Post or Accept-Patch say."
    )
    static let rangeNotSatisfiable = ProblemType(
        "range-not-satisfiable", "The Range asked for starts past the photo's end; `Content-Range` gives its length.")
    static let misdirected = ProblemType(
        "misdirected", "The Host the request names is not one this server answers for.")
    static let preconditionRequired = ProblemType(
        "precondition-required", "This change must say which representation it changes: send it with If-Match.")
    static let rateLimited = ProblemType(
        "rate-limited", "The client sent more requests than its rate limit allows. Wait as long as Retry-After says, then send it again.")
    static let unavailable = ProblemType(
        "unavailable", "The server cannot take this request now (it is at a limit it keeps). Try again after Retry-After, if given.")
    static let notCaughtUp = ProblemType(
        "not-caught-up",
        "This server has not reached the Trips-Revision the read asked for (a change made through another instance) in time. Try again.")
    static let storageUnavailable = ProblemType(
        "storage-unavailable", "Changes cannot be saved or read back now, so none was made. Try again later.")
    static let storageFull = ProblemType(
        "storage-full", "The server has no room to save the change, so it was not made. Try again later.")

    /// Every kind a problem document may name, each once.
    static let all: [ProblemType] = [
        .malformedRequest, .malformedContent, .invalidDraft, .unknownIDs, .invalidPhoto, .invalidForm, .unauthorized, .forbidden,
        .notFound, .methodNotAllowed, .notAcceptable, .requestTimeout, .idempotencyConflict, .changesExpired, .staleIfMatch,
        .tooLarge, .unsupportedMediaType, .rangeNotSatisfiable, .misdirected, .preconditionRequired, .rateLimited,
        .internalError, .notImplemented, .unavailable, .notCaughtUp, .storageUnavailable, .storageFull,
    ]

    /// Where in `all` the kind named by the last segment of its URI stands, or nil: what a
    /// route match carries, a plain number with no strings to count references to.
    static func indexInAll(named name: some Collection<UInt8>) -> Int? {
        all.firstIndex { $0.name.utf8.elementsEqual(name) }
    }

    /// The kind an error of `status` is when its thrower names none: the status's usual
    /// meaning in this API.
    static func usual(for status: HTTPStatus) -> ProblemType {
        switch status.code {
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 405: .methodNotAllowed
        case 406: .notAcceptable
        case 408: .requestTimeout
        case 409: .idempotencyConflict
        case 410: .changesExpired
        case 412: .staleIfMatch
        case 413, 414, 431: .tooLarge
        case 415: .unsupportedMediaType
        case 416: .rangeNotSatisfiable
        case 421: .misdirected
        case 422: .invalidDraft
        case 428: .preconditionRequired
        case 429: .rateLimited
        case 501, 505: .notImplemented
        case 503: .unavailable
        case 507: .storageFull
        case 500..<600: .internalError
        default: .malformedRequest
        }
    }
}

/// `GET /problems/{kind}`: the kind's URI and what it means, as JSON or a line of text.
extension ProblemType: Transferable {
    package static let transferRepresentations: [TransferRepresentation<ProblemType>] = [
        TransferRepresentation(.json) { type in
            var writer = JSONWriter()
            writer.appendRaw(#"{"type":"#)
            writer.appendString(type.uri)
            writer.appendRaw(#","summary":"#)
            writer.appendString(type.summary)
            writer.appendRaw("}")
            return writer.bytes
        },
        TransferRepresentation(.plainText) { Array("\($0.uri): \($0.summary)\n".utf8) },
    ]
}
