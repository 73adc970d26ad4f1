import TripsDomain
import TripsHTTP

/// A read of the list or of a view of it, as far as it is decided before the view's trips
/// are cut out: what `TripsAPI.representView` answers from.
struct ViewRead {
    var request: HTTPRequest
    /// The list as it was read, once, for the whole answer.
    var list: TripList
    var query: TripQuery
    var paging: Pagination
    var form: ReadForm<[Trip]>
    var etag: EntityTag
    /// The answer is for whoever sent the request's credentials alone (`ReadCaching`).
    var isPrivate: Bool
}
