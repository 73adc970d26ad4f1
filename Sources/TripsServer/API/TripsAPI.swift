import Dispatch
import TripsDomain
import TripsFormats
import TripsHTTP
import TripsPlatform
import TripsStore

/// The Trips HTTP API: turns requests into reads and changes of the store, and answers in
/// the representation the client prefers.
final class TripsAPI: HTTPHandler {
    let store: any TripStoring
    let cache = RepresentationCache()
    /// `/trips/changes`; give its hub to the `HTTPServer` so streams reach the event loops.
    let feed: ChangeFeed
    /// Where `/metrics` collects the event loops' counts; give it to the `HTTPServer` too.
    let serverMetrics = HTTPServerMetrics()
    /// Who may do what; nil: anyone may do anything (no tokens configured).
    let access: AccessPolicy?
    let cors: CORSPolicy
    /// The `Host` names answered; others get 421.
    let hosts: HostAllowList
    /// The largest photo a `PUT /trips/{id}/photo` takes, in bytes (`--max-photo-bytes`).
    let maxPhotoBytes: Int
    /// The rate limits (`--rate-limit`, and sign-ins when there are tokens); nil when none
    /// applies, and then a request costs one test of it.
    let rateLimits: RateLimits?
    /// What reads of the list and of a trip tell caches.
    let caching: ReadCaching
    /// `--require-if-match`: a change of trips or of the list without `If-Match` gets 428.
    let requiresIfMatch: Bool
    /// Where work too long for the thread that answers is done: larger answers compressed, off
    /// the event loops (`encode`), and answers made from the whole list, off the store's writer
    /// (`change`). One queue per server, so that a test holding one server's back holds no other's.
    let heavyWork = DispatchQueue(label: "trips-heavy-work", qos: .userInitiated, attributes: .concurrent)
    /// The largest answer compressed on the thread that makes it (`encode`): the default in a
    /// server; a test sets a few KiB, so that a short list shows what a long one does.
    let compressedOnTheLoop: Int

    /// 8 MiB: a phone's full-size JPEG, with room to spare.
    static let defaultMaxPhotoBytes = 8 << 20

    init(
        store: any TripStoring, access: AccessPolicy? = nil, cors: CORSPolicy = CORSPolicy(origins: []),
        hosts: HostAllowList = .loopback, maxSubscribers: Int = ChangeFeed.defaultMaxSubscribers,
        maxReplayBytes: Int = HTTPStreamBacklog.defaultCapacity, maxPhotoBytes: Int = defaultMaxPhotoBytes,
        requiresIfMatch: Bool = false, rateLimit: RateLimitOptions = RateLimitOptions(),
        compressedOnTheLoop: Int = defaultCompressedOnTheLoop, clock: any SchedulingClock = SystemClock()
    ) {
        self.store = store
        self.access = access
        self.cors = cors
        self.hosts = hosts
        self.maxPhotoBytes = maxPhotoBytes
        let limits = RateLimits(
            rate: rateLimit.rate, limitsReads: rateLimit.limitsReads, signIns: access != nil,
            trustedProxies: TrustedProxies(rateLimit.trustedProxies), capacity: rateLimit.capacity, clock: clock)
        rateLimits = limits.isEmpty ? nil : limits
        self.requiresIfMatch = requiresIfMatch
        self.compressedOnTheLoop = compressedOnTheLoop
        caching = ReadCaching(access: access)
        feed = ChangeFeed(store: store, maxSubscribers: maxSubscribers, maxReplayBytes: maxReplayBytes, clock: clock)
    }

    /// Requests are counted by route template (`TripsAPI.routes`); anything else (404s,
    /// `OPTIONS *`) as "other", the last label.
    var routeLabels: [String] { Self.routes.labels }

    /// Checks the host, the origin of a change and the token, routes, and adds what every
    /// answer carries: CORS headers for an allowed origin (a preflight is answered here). The
    /// context gets the route for the metrics and the user for the access log.
    func handle(_ request: HTTPRequest, context: inout RequestContext) -> HTTPReply {
        let match = Self.routes.match(request.method, request.path)
        context.routeLabel = match?.resource.label
        let origin = cors.allowedOrigin(for: request)
        var reply: HTTPReply
        do throws(APIError) {
            switch try admit(request, to: match, origin: origin) {
            case .preflight(let resource, let origin):
                // Counted as "other", and without the CORS fields of an answer: as preflights
                // always were.
                context.routeLabel = nil
                return .now(cors.preflight(resource, origin: origin))
            case .request(let user):
                context.user = user
            }
            if let rateLimits {
                reply = try withinRateLimit(rateLimits, request, at: match, user: context.user, context: context) { () throws(APIError) in
                    try answerAdmitted(request, at: match)
                }
            } else {
                reply = try answerAdmitted(request, at: match)
            }
        } catch {
            reply = .now(errorResponse(error, to: request, requestID: context.requestID))
        }
        encode(&reply, for: request)
        if let origin { CORSPolicy.decorate(&reply, origin: origin) }
        return reply
    }

    /// The answer to a request `admit` let through: at once, or once this server has caught
    /// up to the revision the request asks for.
    private func answerAdmitted(_ request: HTTPRequest, at match: RouteTable.Match?) throws(APIError) -> HTTPReply {
        if let wanted = try revisionToWaitFor(request, at: match) { return waitingForRevision(wanted, request, at: match) }
        return try answer(request, at: match)
    }

    /// A photo's route takes up to `maxPhotoBytes`, signing in and out `SessionForm.maxBytes`;
    /// every other route `--max-body`.
    func contentLimit(for head: HTTPRequest) -> Int? {
        guard let traits = Self.routes.match(head.method, head.path)?.route?.traits else { return nil }
        if traits.contains(.takesAPhoto) { return maxPhotoBytes }
        return traits.contains(.takesASessionForm) ? SessionForm.maxBytes : nil
    }

    /// Refuses, before its content is sent, a request with `Expect: 100-continue` that `admit`
    /// refuses, with the answer `handle` would give once the content arrived; and one whose
    /// rate limit has no room for it now.
    func refusal(beforeContent head: HTTPRequest, context: inout RequestContext) -> HTTPResponse? {
        let match = Self.routes.match(head.method, head.path)
        let origin = cors.allowedOrigin(for: head)
        do throws(APIError) {
            if case .request(let user) = try admit(head, to: match, origin: origin), let rateLimits {
                try refuseOverRateLimit(rateLimits, head, at: match, user: user, context: context)
            }
            return nil
        } catch {
            context.routeLabel = match?.resource.label
            var response = cache.compression.encode(
                error.response(accept: head.headerFields.values(for: .accept), requestID: context.requestID), for: head)
            if let origin { CORSPolicy.decorate(&response, origin: origin) }
            return response
        }
    }

    /// What a request's head decides before any route sees it.
    private enum Admission {
        /// A CORS preflight from an allowed origin: answered at once, no token asked.
        case preflight(RouteTable.Resource, origin: String)
        /// A request to route, made by the user its token names (nil without tokens).
        case request(user: String?)
    }

    /// Decides from a request's head alone whether it goes on: refused first for a name this
    /// server does not answer for (421: DNS rebinding), then for a change from another site's
    /// page whatever its token (403), then for its token (401), then, under
    /// `--require-if-match`, for a change of trips without `If-Match` (428). `handle` asks it of every
    /// request, and `refusal(beforeContent:)` before `100 Continue`, so the two cannot disagree.
    private func admit(_ request: HTTPRequest, to match: RouteTable.Match?, origin: String?) throws(APIError) -> Admission {
        guard hosts.allows(request) else { throw .misdirected }
        try cors.refuseCrossSiteWrite(request)
        if let origin, let match, CORSPolicy.isPreflight(request) { return .preflight(match.resource, origin: origin) }
        let user = try access?.authorize(request, route: match?.route)
        if requiresIfMatch, let route = match?.route { try IfMatchRequirement.check(request, route: route) }
        return .request(user: user)
    }

    /// How long a read waits for this server to catch up to the revision it asks for.
    static let catchUpTimeout: Duration = .seconds(2)

    /// The revision a read of the list says its client has seen (`Trips-Revision: N`, what its
    /// last write answered, perhaps through another instance), when this server has not
    /// reached it yet. Writes do not wait: they are planned against the newest list wherever
    /// it is; nor do reads that do not show the list (`Route.Traits.showsTheList`).
    private func revisionToWaitFor(_ request: HTTPRequest, at match: RouteTable.Match?) throws(APIError) -> UInt64? {
        // Most reads send no Trips-Revision: that is seen before any method or route is looked at.
        let fields = request.headerFields
        guard fields.contains(.tripsRevision), request.method == .get || request.method == .head,
            match?.route?.traits.contains(.showsTheList) == true
        else { return nil }
        let values = fields.values(for: .tripsRevision)
        guard values.count == 1, let wanted = UInt64(values[0]) else {
            throw APIError(
                .badRequest,
                "Trips-Revision: give one revision, a whole number as a write's answer said, not \"\(values.joined(separator: ", "))\"")
        }
        return store.read { $0.revision } < wanted ? wanted : nil
    }

    /// Answers the read once this server has reached `wanted`; 503 with `Retry-After` when it
    /// has not within `catchUpTimeout`.
    private func waitingForRevision(_ wanted: UInt64, _ request: HTTPRequest, at match: RouteTable.Match?) -> HTTPReply {
        .later { [self] responder in
            feed.whenCaughtUp(to: wanted, within: Self.catchUpTimeout) { [self] reached in
                var reply: HTTPReply
                do throws(APIError) {
                    guard reached else {
                        var error = APIError(
                            .serviceUnavailable, "This server has not caught up to revision \(wanted) yet; try again.", type: .notCaughtUp)
                        error.headerFields[.retryAfter] = "1"
                        throw error
                    }
                    reply = try answer(request, at: match)
                } catch {
                    reply = .now(error.response(accept: request.headerFields.values(for: .accept), requestID: responder.requestID))
                }
                switch reply {
                case .now(let response): responder.respond(response)
                case .later(let start): start(responder)
                case .stream:
                    responder.respond(
                        APIError(.internalServerError, "a read that waits cannot stream").response(
                            accept: [], requestID: responder.requestID))
                }
            }
        }
    }

    /// The answer of the route `match` found: 404 for no route, `OPTIONS` from the table,
    /// 405 for a method the path does not answer.
    private func answer(_ request: HTTPRequest, at match: RouteTable.Match?) throws(APIError) -> HTTPReply {
        if request.method == .options && request.target == "*" { return .now(optionsForServer()) }
        guard let match else { throw .notFound(request.path) }
        if request.method == .options { return .now(options(match.resource)) }
        guard let route = match.route else { throw .methodNotAllowed(request.method, match.resource) }
        return try route.answer(request, match.argument, api: self)
    }

    /// `OPTIONS *`: the methods some resource of this server answers.
    /// https://www.rfc-editor.org/rfc/rfc9110#name-options
    private func optionsForServer() -> HTTPResponse {
        let methods = HTTPMethod.known.filter { method in
            Self.routes.resources.contains { $0.allowedMethods.contains(method) }
        }
        return HTTPResponse(status: .noContent, headerFields: [.allow: methods.map(\.rawValue).joined(separator: ", ")])
    }

    /// `OPTIONS`: what the resource allows, and which bodies it takes (from `TripsAPI.routes`).
    private func options(_ resource: RouteTable.Resource) -> HTTPResponse {
        var fields: HTTPFields = [.allow: resource.allowedMethods.map(\.rawValue).joined(separator: ", ")]
        for (method, name) in [(HTTPMethod.post, HTTPField.Name.acceptPost), (.patch, .acceptPatch)] {
            let types = resource.bodyTypes(for: method)
            if !types.isEmpty { fields[name] = types.map(\.description).joined(separator: ", ") }
        }
        return HTTPResponse(status: .noContent, headerFields: fields)
    }
}

/// The pieces every endpoint shares: negotiation, validators, and the wait for the store.
extension TripsAPI {
    /// The representation to answer with, among `T`'s, and its language; 406 when none is
    /// acceptable.
    func negotiate<T: Transferable>(_ type: T.Type, for request: HTTPRequest) throws(APIError) -> Negotiated<T> {
        negotiated(at: try choosePosition(for: request) { T.transferRepresentations.map(\.mediaType) }, for: request)
    }

    /// A trip's or a list's representation, or its page; 406 when none is acceptable.
    func negotiateRead<T: PageRepresentable>(_ type: T.Type, for request: HTTPRequest) throws(APIError) -> ReadForm<T> {
        let position = try choosePosition(for: request) { T.readMediaTypes }
        guard position < T.transferRepresentations.count else { return .page(requestedLanguage(request)) }
        return .representation(negotiated(at: position, for: request))
    }

    /// The representation at `position`, in the requested language where it has words.
    private func negotiated<T: Transferable>(at position: Int, for request: HTTPRequest) -> Negotiated<T> {
        Negotiated(position: position, language: T.transferRepresentations[position].isLocalized ? requestedLanguage(request) : nil)
    }

    /// The language `Accept-Language` chooses; nil when the request states none (or nothing
    /// valid), and is answered in English with the headers as before there were languages.
    func requestedLanguage(_ request: HTTPRequest) -> Language? {
        let values = request.headerFields.values(for: .acceptLanguage)
        guard !values.isEmpty else { return nil }
        let field = AcceptLanguage(values)
        return field.ranges.isEmpty ? nil : field.chosen
    }

    /// Where the acceptable type the client likes best stands in `offered`.
    ///
    /// Without `Accept` (most API clients, and every benchmark) it is the first one, decided
    /// without building the list of offered types.
    func choosePosition(for request: HTTPRequest, among offered: () -> [MediaType]) throws(APIError) -> Int {
        let fields = request.headerFields
        guard fields.contains(.accept) else { return 0 }
        let types = offered()
        guard let index = ContentNegotiation.choose(types, accept: fields) else { throw .notAcceptable(types) }
        return index
    }

    /// A 200 (or other) response with `value` in the chosen representation and language, its
    /// validator, `Vary`, and the list revision it reflects (`Trips-Revision`), from which a
    /// client follows `/trips/changes` without a gap. `exported`: the representation's bytes
    /// when the caller has them already (a list's JSON put together from kept objects).
    func represent<T: Transferable>(
        _ value: T, as chosen: Negotiated<T>, status: HTTPStatus = .ok, etag: EntityTag? = nil, revision: UInt64? = nil,
        extraFields: HTTPFields = [:], exported: [UInt8]? = nil
    ) -> HTTPResponse {
        let representation = chosen.representation
        var fields = extraFields
        // Room for the five fields below at once, not grown from nothing three times over.
        fields.reserveCapacity(extraFields.count + 5)
        if let revision { fields[.tripsRevision] = String(revision) }
        fields[.contentType] = representation.mediaType.contentTypeValue
        Self.describeLanguage(chosen.language, in: &fields)
        if let etag { fields[.etag] = etag.headerValue }
        return HTTPResponse(
            status: status, headerFields: fields, body: exported ?? representation.export(value, in: chosen.language ?? .english))
    }

    /// `Vary`, and `Content-Language` when the request stated a language: without
    /// `Accept-Language`, every byte is as it was before there were languages.
    static func describeLanguage(_ language: Language?, in fields: inout HTTPFields) {
        if let language { fields[.contentLanguage] = language.tag }
        fields[.vary] = vary(language)
    }

    /// What the answer varies on: `Accept`, and `Accept-Language` when the request stated one.
    static func vary(_ language: Language?) -> String {
        language == nil ? "Accept" : "Accept, Accept-Language"
    }

    /// 304 when `If-None-Match` names the current tag of a read of the list or a trip, 412 when
    /// `If-Match` names none; nil to go on with the full answer.
    func notModified(
        _ request: HTTPRequest, current: @autoclosure () -> EntityTag, language: Language?, isPrivate: Bool, isPaged: Bool = false
    ) throws(APIError) -> HTTPResponse? {
        // Only `Cache-Control` and `Vary` of the 200's fields: a 304 repeats no other
        // metadata (RFC 9110 §15.4.5). The tag is spelled out only for a request that asks.
        guard request.headerFields.contains(.ifNoneMatch) || request.headerFields.contains(.ifMatch) else { return nil }
        var fields: HTTPFields = [:]
        caching.describe(&fields, language: language, isPrivate: isPrivate, isPaged: isPaged)
        return try notModified(request, current: current(), compressible: true, fields: fields)
    }

    /// Runs a change through the store and answers once it is durable (or refused).
    ///
    /// `plan` sees the newest list and returns the change to make (nil: nothing to do);
    /// `answer` builds the response from the list right after the change. With `returningList`
    /// (an answer that grows with the list, such as every favorite of a drop's), on `heavyWork`:
    /// the store completes changes on its writer thread, whose next transaction waits for it.
    ///
    /// With an `Idempotency-Key` (in the scope of the request's token), the answer is made as
    /// the change is planned and kept with it (a large body as what the change did), so a
    /// retry of the same request gets it again instead of a second change.
    ///
    /// `readsNoList`: `plan` makes the same change whatever the list (`ChangeRequest.readsNoList`).
    func change(
        _ request: HTTPRequest, pathID: Int? = nil, returningList: Bool = false, photo: PhotoBytes? = nil, readsNoList: Bool = false,
        plan: @escaping @Sendable (TripList) throws(MutationError) -> TripChange?,
        answer: @escaping @Sendable (Mutation) throws(APIError) -> HTTPResponse
    ) throws(APIError) -> HTTPReply {
        let accept = request.headerFields.values(for: .accept)
        // A change got past `authorize` in `handle`: this names the same token again.
        let tokenName = try access?.authorize(request, route: nil)
        let idempotency = try IdempotencyKey.request(request, tokenName: tokenName) { mutation in
            (try? answer(mutation)).map(StoredAnswer.init)
        }
        let work = heavyWork
        return .later { [self] responder in
            let respond = { @Sendable (result: Result<Mutation, MutationError>) in
                do throws(APIError) {
                    switch result {
                    case .success(let mutation):
                        responder.respond(try Self.response(to: mutation, answer: answer))
                    case .failure(let error):
                        throw APIError(error, pathID: pathID)
                    }
                } catch {
                    responder.respond(error.response(accept: accept, requestID: responder.requestID))
                }
            }
            store.mutate(
                plan, returningList: returningList, idempotency: idempotency, photo: photo, traceparent: responder.trace?.traceparent,
                readsNoList: readsNoList
            ) { result in
                if returningList { work.async { respond(result) } } else { respond(result) }
            }
        }
    }

    /// The answer to a change that is durable: the kept one when there is one (a retry's,
    /// or a keyed change's own), made again from the list as it is now when its body was too
    /// large to keep (404 when the trips it named were deleted since), or made now.
    private static func response(
        to mutation: Mutation, answer: (Mutation) throws(APIError) -> HTTPResponse
    ) throws(APIError) -> HTTPResponse {
        guard let kept = mutation.answer else { return try answer(mutation) }
        switch kept.content {
        case .body(let body):
            return HTTPResponse(kept, body: body)
        case .remade(let outcome):
            if mutation.outcome == nil, case .trip(let id) = outcome { throw .deletedSince([id]) }
            if mutation.outcome == nil, case .added(let ids) = outcome { throw .deletedSince(ids) }
            var response = try answer(mutation)
            response.restamp(as: kept)
            return response
        }
    }
}

extension APIError {
    /// 404 for a retry whose first answer was too large to keep, and whose trips were deleted
    /// since: there is nothing left to answer it with.
    static func deletedSince(_ ids: [Trip.ID]) -> APIError {
        var error = APIError(
            .notFound, "The change this Idempotency-Key made was made, but the trips it answered with were deleted since.")
        error.ids = ids
        return error
    }

    /// A refused or failed change.
    init(_ error: MutationError, pathID: Int?) {
        switch error {
        case .rejected(let refusal):
            self.init(refusal, pathID: pathID)
        case .preconditionFailed:
            self = .preconditionFailed
        case .representationExists:
            self.init(
                .preconditionFailed,
                "If-None-Match names a current representation (or is *, and the resource exists): the change was not made.")
        case .idempotencyConflict:
            self.init(.unprocessableContent, "This Idempotency-Key was used for a different request; use a new key for a new request.")
            member = "Idempotency-Key"
        case .idempotencyInFlight:
            self.init(.conflict, "The first request with this Idempotency-Key is still being made; retry once it is answered.")
            headerFields[.retryAfter] = "1"
        case .storage(.databaseFault), .storage(.photoBytesMissing):
            // The database refused what the server wrote, or the server asked for a change it
            // cannot make: a fault of the server's, which the same request cannot get past.
            self.init(.internalServerError, "The server could not save the change because of a fault on its side, so it was not made.")
        case .storage(let failure):
            // A full disk is the server's storage problem (507); anything else may pass (503).
            // The client is not told paths or system errors: the server's log has them.
            if failure.isOutOfSpace {
                self.init(.insufficientStorage, "The server has no room to save the change, so it was not made. Try again later.")
            } else {
                self.init(
                    .serviceUnavailable, "The server could not save the change, so it was not made. Try again later.",
                    type: .storageUnavailable)
            }
            headerFields[.retryAfter] = "1"
        }
    }
}
