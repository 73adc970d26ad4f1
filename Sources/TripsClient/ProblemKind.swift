/// What kind of refusal a problem document reports, read from its `type` (`/problems/<kind>`,
/// a reference relative to the request's URL): what an app matches on, rather than the title
/// or the detail, which may be reworded or translated.
///
///     catch let error as TripsClientError where error.kind == .staleIfMatch { reload() }
///
/// The raw value is the kind's name, the last segment of its URI; each kind is described at
/// `GET /problems/<kind>`. A `type` this client does not know (a newer server's kind, another
/// server's URI, `about:blank`) has no kind: `Problem.kind` is nil, and the status still tells.
public enum ProblemKind: String, Sendable, Hashable, CaseIterable {
    case malformedRequest = "malformed-request"
    case malformedContent = "malformed-content"
    case invalidDraft = "invalid-draft"
    case unknownIDs = "unknown-ids"
    case invalidPhoto = "invalid-photo"
    case invalidForm = "invalid-form"
    case unauthorized
    case forbidden
    case notFound = "not-found"
    case methodNotAllowed = "method-not-allowed"
    case notAcceptable = "not-acceptable"
    case requestTimeout = "request-timeout"
    case idempotencyConflict = "idempotency-conflict"
    case changesExpired = "changes-expired"
    case staleIfMatch = "stale-if-match"
    case tooLarge = "too-large"
    case unsupportedMediaType = "unsupported-media-type"
    case rangeNotSatisfiable = "range-not-satisfiable"
    case misdirected
    case preconditionRequired = "precondition-required"
    case rateLimited = "rate-limited"
    case internalError = "internal-error"
    case notImplemented = "not-implemented"
    case unavailable
    case notCaughtUp = "not-caught-up"
    case storageUnavailable = "storage-unavailable"
    case storageFull = "storage-full"

    /// The path every kind's `type` starts with.
    static let pathPrefix = "/problems/"

    /// The kind a problem document's `type` names; nil for `about:blank`, a URI of another
    /// form, or a kind this client does not know.
    public init?(type: String) {
        guard type.hasPrefix(Self.pathPrefix) else { return nil }
        self.init(rawValue: String(type.dropFirst(Self.pathPrefix.count)))
    }

    /// The `type` a problem document of this kind carries (`/problems/stale-if-match`).
    public var type: String { Self.pathPrefix + rawValue }
}
