import Foundation
import TripsDomain
import TripsFormats

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Trips service from Swift: every operation of `openapi.yaml` a client needs, as
/// async methods on the domain's own `Trip` and `TripDraft`, prices exact as `Decimal`.
///
///     let client = TripsClient(baseURL: URL(string: "http://127.0.0.1:8080")!)
///     let list = try await client.list()
///     _ = try await client.move([3], before: 1, ifMatch: list.etag)
///
/// Every change takes an optional `ifMatch` (an `ETag` read before: 412 when it is no longer
/// current) and carries an `Idempotency-Key`; a change whose connection broke, or that got
/// 503, is sent again with the same key, so the server makes it once (`RetryPolicy`).
public final class TripsClient: Sendable {
    public let baseURL: URL
    /// Sent as `Authorization: Bearer TOKEN` when set (`--tokens` on the server).
    public let token: String?
    public let retry: RetryPolicy
    /// How large an answer and how long a request may be.
    public let limits: ClientLimits
    let transport: any HTTPTransport
    /// Makes the idempotency key of each change.
    let makeKey: @Sendable () -> String

    public init(
        baseURL: URL, token: String? = nil, retry: RetryPolicy = .default, limits: ClientLimits = .default,
        transport: any HTTPTransport = URLSessionTransport(), makeKey: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.baseURL = baseURL
        self.token = token
        self.retry = retry
        self.limits = limits
        self.transport = transport
        self.makeKey = makeKey
    }

    /// An answer that is not a refusal: status, body and fields.
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
        var response: HTTPURLResponse

        var etag: String? { response.field("ETag") }
        var revision: UInt64? { response.tripsRevision }

        /// The body as JSON.
        func json() throws(TripsClientError) -> JSONValue {
            do {
                return try JSONValue(parsing: body)
            } catch {
                throw .invalidAnswer("not JSON (\(error))")
            }
        }
    }

    /// Sends `request`, trying again (with the same idempotency key) after a lost connection,
    /// no answer within `limits.requestTimeout`, a 503 or a 409 while the policy allows; a
    /// 4xx or 5xx answer throws its problem, one larger than `limits.maxAnswerBytes` throws
    /// `.answerTooLarge`.
    func send(_ request: ClientRequest) async throws(TripsClientError) -> Answer {
        guard let url = request.url(under: baseURL) else { throw .invalidAnswer("\(request.path) makes no URL under \(baseURL)") }
        var urlRequest = URLRequest(url: url)
        urlRequest.timeoutInterval = limits.requestTimeout.seconds
        urlRequest.httpMethod = request.method
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let ifMatch = request.ifMatch { urlRequest.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
        if let contentType = request.contentType { urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if request.isChange { urlRequest.setValue(makeKey(), forHTTPHeaderField: "Idempotency-Key") }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        var attempt = 0
        while true {
            attempt += 1
            let retryAfter: Duration?
            let failure: TripsClientError
            do {
                let (transport, sent, maxBytes) = (transport, urlRequest, limits.maxAnswerBytes)
                let (data, response) = try await limits.withinRequestTimeout { try await transport.send(sent, maxBytes: maxBytes) }
                let answer = Answer(status: response.statusCode, body: [UInt8](data), response: response)
                guard answer.status >= 400 else { return answer }
                let problem = Problem(status: answer.status, body: request.method == "HEAD" ? [] : answer.body)
                guard [409, 503].contains(answer.status) else { throw TripsClientError(refusal: problem) }
                failure = TripsClientError(refusal: problem)
                retryAfter = response.retryAfter
            } catch let error as TripsClientError {
                guard case .timedOut = error else { throw error }
                failure = error
                retryAfter = nil
            } catch let error as URLError where error.isConnectionFailure {
                failure = .connectionFailed(error.localizedDescription)
                retryAfter = nil
            } catch is CancellationError {
                throw .connectionFailed("cancelled")
            } catch {
                throw .connectionFailed("\(error)")
            }
            guard attempt < retry.maxAttempts else { throw failure }
            do {
                try await retry.sleep(retry.delay(afterAttempt: attempt, retryAfter: retryAfter))
            } catch {
                throw failure
            }
        }
    }
}
