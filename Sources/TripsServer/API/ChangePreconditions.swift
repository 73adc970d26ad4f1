import TripsHTTP

/// A change's `If-Match` and `If-None-Match`, parsed at the edge and checked inside the change
/// against the newest list (`MutationError.check`), so that of two clients racing, the
/// condition holds for the list the change is made on.
struct ChangePreconditions: Sendable {
    var ifMatch: EntityTagCondition?
    var ifNoneMatch: EntityTagCondition?

    init(_ request: HTTPRequest) {
        ifMatch = EntityTagCondition.parse(request.headerFields.values(for: .ifMatch))
        ifNoneMatch = EntityTagCondition.parse(request.headerFields.values(for: .ifNoneMatch))
    }

    /// Whether the request states no condition: its change need not read the list for one.
    var isEmpty: Bool { ifMatch == nil && ifNoneMatch == nil }
}
