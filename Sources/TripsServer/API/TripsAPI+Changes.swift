import TripsDomain
import TripsFormats
import TripsHTTP

/// `GET /trips/changes`: the change feed, negotiated like any resource (declared order:
/// JSON first, for long polling; then `text/event-stream`).
extension TripsAPI {
    /// The feed's representations, most preferred first.
    static let changeRepresentations: [MediaType] = [.json, .eventStream]

    func changes(_ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let query = try ChangesQuery(queryItems: request.queryItems)
        // What EventSource sends when it reconnects: checked whenever it is sent, used by a
        // stream without ?since (which wins).
        let lastEventID = try request.headerFields[.lastEventID].map { (value) throws(APIError) in
            try ChangesQuery.revision(value, name: "Last-Event-ID")
        }
        let accept = request.headerFields.values(for: .accept)
        guard let chosen = ContentNegotiation.choose(Self.changeRepresentations, accept: accept) else {
            throw .notAcceptable(Self.changeRepresentations)
        }
        if Self.changeRepresentations[chosen] == .eventStream {
            return try feed.stream(since: query.since ?? lastEventID)
        }
        return feed.poll(since: query.since, wait: query.wait, accept: accept)
    }
}

/// `?since=REV&wait=S`, checked: 400 names the parameter at fault.
struct ChangesQuery: Sendable, Equatable {
    /// The last revision the client has seen; nil: from now on.
    var since: UInt64?
    /// How long a long poll may wait for a change, in seconds (0 to 60).
    var wait = 0

    init(queryItems: [HTTPQueryItem]) throws(APIError) {
        var seen = Set<String>()
        for item in queryItems {
            guard seen.insert(item.name).inserted else { throw APIError(.badRequest, "\(item.name): is given more than once") }
            switch item.name {
            case "since":
                since = try Self.revision(item.value, name: "since")
            case "wait":
                guard let seconds = Int(item.value), (0...ChangeFeed.maxWait).contains(seconds) else {
                    throw APIError(
                        .badRequest, "wait: must be a whole number of seconds from 0 to \(ChangeFeed.maxWait), not \"\(item.value)\"")
                }
                wait = seconds
            default:
                throw APIError(.badRequest, "\(item.name): is not a parameter of /trips/changes (since, wait)")
            }
        }
    }

    /// A revision: a whole number from 0.
    static func revision(_ text: String, name: String) throws(APIError) -> UInt64 {
        guard let revision = UInt64(text) else {
            throw APIError(.badRequest, "\(name): must be a revision (a whole number from 0), not \"\(text)\"")
        }
        return revision
    }
}
