import TripsHTTP
import TripsStore

/// A change's `If-Match` and `If-None-Match`, parsed at the edge and checked inside the change
/// against the newest list (`check`), so that of two clients racing, the condition holds for
/// the list the change is made on.
struct ChangePreconditions: Sendable {
    var ifMatch: EntityTagCondition?
    var ifNoneMatch: EntityTagCondition?

    init(_ request: HTTPRequest) {
        ifMatch = EntityTagCondition.parse(request.headerFields.values(for: .ifMatch))
        ifNoneMatch = EntityTagCondition.parse(request.headerFields.values(for: .ifNoneMatch))
    }

    /// Whether the request states no condition: its change need not read the list for one.
    var isEmpty: Bool { ifMatch == nil && ifNoneMatch == nil }

    /// Refuses the change when `If-Match` names none of `current` (the tags of every
    /// representation of the trip or list the change is made on), or `If-None-Match` names one
    /// (`*`: any), as RFC 9110 §13.2.2 evaluates them for a method other than GET.
    func check(against current: @autoclosure () -> [EntityTag]) throws(MutationError) {
        guard !isEmpty else { return }
        let tags = current()
        if let ifMatch, !ifMatch.matchesStrongly(tags) { throw .preconditionFailed }
        if let ifNoneMatch, tags.contains(where: ifNoneMatch.matchesWeakly) { throw .representationExists }
    }
}
