import TripsDomain
import TripsHTTP

/// A read of the list or of a view of it, as far as it is decided before the view's trips
/// are cut out: what `TripsAPI.representView` answers from.
struct ViewRead {
    /// The path and query the answer's links go on from.
    typealias Target = (path: String, query: String?)

    var request: HTTPRequest
    /// The request's own target, or the plain `/trips` for an answer cached for every
    /// request that means the whole list.
    var target: Target
    /// The list as it was read, once, for the whole answer.
    var list: TripList
    var query: TripQuery
    /// The page the client asked for (`limit`, `after`): what `first`, `Prefer: count=exact`
    /// and `Vary: Prefer` follow.
    var asked: Pagination
    var form: ReadForm<[Trip]>
    var etag: EntityTag
    /// The answer is for whoever sent the request's credentials alone (`ReadCaching`).
    var isPrivate: Bool

    /// The page of the view that is shown: the one asked for, or the browser page's first
    /// 200 rows when it asked for none.
    var paging: Pagination {
        guard case .page = form else { return asked }
        return asked.forPage
    }
}
