import TripsHTTP

/// Applying the rate limits (`RateLimits`) to admitted requests: once their token is known
/// (its bucket is the token's) and before anything is read or changed.
extension TripsAPI {
    /// The answer `answer` gives, when the request's bucket under its policy holds one more
    /// request, with the policy's fields; 429 (thrown) when it does not. Any error `answer`
    /// throws becomes its answer here, so that it carries the fields too.
    func withinRateLimit(
        _ limits: RateLimits, _ request: HTTPRequest, at match: RouteTable.Match?, user: String?, context: RequestContext,
        answer: () throws(APIError) -> HTTPReply
    ) throws(APIError) -> HTTPReply {
        guard let policy = limits.policy(for: request.method, route: match?.route) else { return try answer() }
        let client = limits.client(request, user: user, peer: context.peer, under: policy)
        var decision = policy.limiter.take(client)
        guard decision.isAllowed else { throw policy.refusal(decision) }
        var reply: HTTPReply
        do throws(APIError) {
            reply = try answer()
        } catch {
            reply = .now(errorResponse(error, to: request, requestID: context.requestID))
        }
        if policy.countsFailuresOnly, case .now(let response) = reply, response.status.code < 400 {
            policy.limiter.giveBack(client)
            decision = policy.limiter.peek(client)
        }
        let fields = policy.fields(decision)
        reply.changeResponse { response in
            for field in fields { response.headerFields[field.name] = field.value }
        }
        return reply
    }

    /// 429 for a request whose bucket is empty now, asked of its head before `100 Continue`
    /// (nothing is taken: the request takes its turn once its content arrives).
    func refuseOverRateLimit(
        _ limits: RateLimits, _ head: HTTPRequest, at match: RouteTable.Match?, user: String?, context: RequestContext
    ) throws(APIError) {
        guard let policy = limits.policy(for: head.method, route: match?.route) else { return }
        let decision = policy.limiter.peek(limits.client(head, user: user, peer: context.peer, under: policy))
        if !decision.isAllowed { throw policy.refusal(decision) }
    }
}
