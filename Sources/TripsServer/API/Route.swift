import TripsDomain
import TripsFormats
import TripsHTTP

/// One route of the API: a method on a path template, the media types it reads as a body,
/// and the code that answers it. `TripsAPI.routes` lists every one; matching, `Allow`,
/// `OPTIONS`, `Accept-Post`/`Accept-Patch`, 405s and the metric labels are derived from it.
/// A class: a request's match refers to its route instead of copying it.
final class Route: Sendable {
    let method: HTTPMethod
    /// The path as openapi.yaml writes it: literal segments, `{id}` for a trip id (a positive
    /// decimal number within `Int`) and `{photo}` for a photo's file name (`PhotoName`). Its
    /// place among the table's templates is its metric label.
    let template: String
    /// What a body may be here (`Accept-Post`, `Accept-Patch`); empty when none is read.
    let bodyTypes: [MediaType]
    let traits: Traits
    let handler: Handler

    /// The code that answers a route: given the id under `{id}` or the name under `{photo}`
    /// when its template has one.
    enum Handler: Sendable {
        case request(@Sendable (TripsAPI, HTTPRequest) throws(APIError) -> HTTPReply)
        case trip(@Sendable (TripsAPI, Trip.ID, HTTPRequest) throws(APIError) -> HTTPReply)
        case photo(@Sendable (TripsAPI, PhotoName, HTTPRequest) throws(APIError) -> HTTPReply)
        case problemType(@Sendable (TripsAPI, ProblemType, HTTPRequest) throws(APIError) -> HTTPReply)
    }

    /// What a route is besides its answer.
    struct Traits: OptionSet, Sendable {
        let rawValue: UInt8

        /// Answered without credentials, even where reads need them (`--private`), changes
        /// included: the probes load balancers and orchestrators ask, the page's assets (the
        /// sign-in page needs them before anyone signed in), signing in and out, and what a
        /// kind of problem means (a refused client follows its `type` without a token).
        static let needsNoCredentials = Traits(rawValue: 1 << 0)
        /// A read of the list or part of it, which waits for a `Trips-Revision` its client
        /// asks for (read your writes). The probes, metrics, the spec, the assets and the
        /// redirect answer at once; the change feed resumes by its own revision.
        static let showsTheList = Traits(rawValue: 1 << 1)
        /// Its content is a photo: up to `--max-photo-bytes`, not `--max-body`.
        static let takesAPhoto = Traits(rawValue: 1 << 2)
        /// Its content is a small form (`SessionForm`): up to 8 KiB, not `--max-body`.
        static let takesASessionForm = Traits(rawValue: 1 << 3)
        /// Signs a browser in with a token: limited per client address (`RateLimits.signIns`),
        /// so that tokens cannot be guessed at the speed of the network.
        static let signsIn = Traits(rawValue: 1 << 4)
    }

    convenience init(
        _ method: HTTPMethod, _ template: String, accepts bodyTypes: [MediaType] = [], _ traits: Traits = [],
        answer: @escaping @Sendable (TripsAPI, HTTPRequest) throws(APIError) -> HTTPReply
    ) {
        self.init(method, template, bodyTypes, traits, .request(answer))
    }

    convenience init(
        _ method: HTTPMethod, _ template: String, accepts bodyTypes: [MediaType] = [], _ traits: Traits = [],
        answerForTrip: @escaping @Sendable (TripsAPI, Trip.ID, HTTPRequest) throws(APIError) -> HTTPReply
    ) {
        self.init(method, template, bodyTypes, traits, .trip(answerForTrip))
    }

    convenience init(
        _ method: HTTPMethod, _ template: String, _ traits: Traits = [],
        answerForPhoto: @escaping @Sendable (TripsAPI, PhotoName, HTTPRequest) throws(APIError) -> HTTPReply
    ) {
        self.init(method, template, [], traits, .photo(answerForPhoto))
    }

    convenience init(
        _ method: HTTPMethod, _ template: String, _ traits: Traits = [],
        answerForProblemType: @escaping @Sendable (TripsAPI, ProblemType, HTTPRequest) throws(APIError) -> HTTPReply
    ) {
        self.init(method, template, [], traits, .problemType(answerForProblemType))
    }

    private init(_ method: HTTPMethod, _ template: String, _ bodyTypes: [MediaType], _ traits: Traits, _ handler: Handler) {
        self.method = method
        self.template = template
        self.bodyTypes = bodyTypes
        self.traits = traits
        self.handler = handler
    }

    /// The parameter the handler takes, if any; the table checks it against the template.
    var parameter: RouteTable.Parameter? {
        switch handler {
        case .request: nil
        case .trip: .tripID
        case .photo: .photoName
        case .problemType: .problemType
        }
    }

    /// Answers `request` to this route, given the parameter its path matched (nil when its
    /// template has none).
    func answer(_ request: HTTPRequest, _ argument: RouteTable.Argument?, api: TripsAPI) throws(APIError) -> HTTPReply {
        // `RouteTable` gives every route the argument its handler takes.
        switch (handler, argument) {
        case (.request(let answer), _):
            return try answer(api, request)
        case (.trip(let answer), .tripID(let id)?):
            return try answer(api, id, request)
        case (.photo(let answer), .photoName(let name)?):
            return try answer(api, name, request)
        case (.problemType(let answer), .problemType(let index)?):
            return try answer(api, ProblemType.all[index], request)
        default:
            throw APIError(.internalServerError, "\(method) \(template) was matched without its parameter")
        }
    }
}
