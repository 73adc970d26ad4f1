import TripsDomain
import TripsHTTP

/// One page of a long view (`?limit=N&after=ID`), as GitHub pages its lists: the trips after
/// a trip of the view (in the view's order, with every filter, search and sort), at most
/// `limit` of them, and a `Link: <…>; rel="next"` the client follows as it is while more follow
/// (and `rel="first"` back to the start).
struct Pagination: Sendable, Equatable {
    static let limits = 1...1_000
    /// The rows the browser page shows at a time when the request names no `limit`: a long
    /// view arrives in pages its script appends as the reader reaches the end (JSON and text
    /// keep their rule: no `limit`, the whole view).
    static let pageRows = 200

    /// At most this many trips; nil: the whole view, as without paging.
    var limit: Int?
    /// Start after this trip of the view; nil: from the start.
    var after: Trip.ID?

    /// Takes `limit` and `after` out of `items` (400 for a bad value), leaving the rest.
    init(taking items: inout [HTTPQueryItem]) throws(APIError) {
        for item in items where item.name == "limit" || item.name == "after" {
            guard items.filter({ $0.name == item.name }).count == 1 else {
                throw APIError(.badRequest, "\(item.name): is given more than once")
            }
            guard let number = Int(item.value) else {
                throw APIError(.badRequest, "\(item.name): must be a whole number, not \"\(item.value)\"")
            }
            if item.name == "limit" {
                guard Self.limits.contains(number) else {
                    throw APIError(.badRequest, "limit: must be from \(Self.limits.lowerBound) to \(Self.limits.upperBound), not \(number)")
                }
                limit = number
            } else {
                guard number > 0 else { throw APIError(.badRequest, "after: must be a trip id, not \(number)") }
                after = number
            }
        }
        items.removeAll { $0.name == "limit" || $0.name == "after" }
    }

    /// At most `limit` trips after `after`.
    init(limit: Int? = nil, after: Trip.ID? = nil) {
        (self.limit, self.after) = (limit, after)
    }

    var isEverything: Bool { limit == nil && after == nil }

    /// The client asked for a page (`limit` or `after`).
    var isPaged: Bool { !isEverything }

    /// The same page with `pageRows` as its limit when it names none: what the browser page shows.
    var forPage: Pagination { Pagination(limit: limit ?? Self.pageRows, after: after) }

    /// The page of `view`, and the id the next page starts after (nil on the last page);
    /// 422 when `after` names no trip of the view.
    func slice(_ view: [Trip]) throws(APIError) -> (trips: [Trip], nextAfter: Trip.ID?) {
        var start = view.startIndex
        if let after {
            guard let position = view.firstIndex(where: { $0.id == after }) else { throw notInView(after) }
            start = position + 1
        }
        return cut(view[start...], count: view.count - start)
    }

    /// The page of the whole list in stored order: finding `after` costs O(√n) (`ListOrder`),
    /// not a pass over the list.
    func slice(_ list: borrowing TripList) throws(APIError) -> (trips: [Trip], nextAfter: Trip.ID?) {
        guard let after else { return firstPage(of: list) }
        guard let rest = list.trips(after: after) else { throw notInView(after) }
        return cut(rest, count: rest.count)
    }

    /// The first page of the whole list in stored order (`after` is not read).
    func firstPage(of list: borrowing TripList) -> (trips: [Trip], nextAfter: Trip.ID?) {
        cut(list.trips, count: list.count)
    }

    /// The first `limit` trips of `rest`, which holds `count`.
    private func cut(_ rest: some Sequence<Trip>, count: Int) -> (trips: [Trip], nextAfter: Trip.ID?) {
        guard let limit, count > limit else { return (Array(rest), nil) }
        let page = Array(rest.prefix(limit))
        return (page, page.last?.id)
    }

    private func notInView(_ after: Trip.ID) -> APIError {
        var error = APIError(
            .unprocessableContent, "after: trip \(after) is not in this view (it was deleted, or the view no longer shows it)",
            type: .unknownIDs)
        error.member = "after"
        error.ids = [after]
        return error
    }

    /// The request's own target with `after` set to `after`: the next page's URL, its query
    /// percent-encoded where the client sent characters a URL may not hold.
    static func nextURL(path: String, query: String?, after: Trip.ID) -> String {
        url(path: path, parts: otherParts(of: query) + ["after=\(after)"])
    }

    /// The request's own target without `after`: the first page's URL (its `limit`, view and
    /// order kept).
    static func firstURL(path: String, query: String?) -> String {
        url(path: path, parts: otherParts(of: query))
    }

    /// The parts of a query other than `after`.
    private static func otherParts(of query: String?) -> [String] {
        (query ?? "").split(separator: "&").filter { !$0.hasPrefix("after=") && $0 != "after" }.map(String.init)
    }

    private static func url(path: String, parts: [String]) -> String {
        parts.isEmpty ? path : "\(path)?\(HTTPRequest.uriEncodedQuery(parts.joined(separator: "&")))"
    }
}
