import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What sends a request and brings back its answer: `URLSession` by default, something
/// else in a test or an app that routes requests its own way.
public protocol HTTPTransport: Sendable {
    /// The answer to `request`, its body at most `maxBytes`: throws
    /// `TripsClientError.answerTooLarge` as soon as the body passes it, and `URLError` when
    /// no answer came (the connection failed). Cancelling the calling task cancels the request.
    func send(_ request: URLRequest, maxBytes: Int) async throws -> (Data, HTTPURLResponse)
}

/// `URLSession`, without its cache or cookies (every answer comes from the server, and the
/// client sends its validators itself), reading each answer as it arrives so that one
/// larger than the limit is cancelled at once rather than buffered whole.
public struct URLSessionTransport: HTTPTransport {
    private let streaming: StreamingSession

    public init(configuration: URLSessionConfiguration = URLSessionTransport.configuration()) {
        streaming = StreamingSession(configuration: configuration)
    }

    public func send(_ request: URLRequest, maxBytes: Int) async throws -> (Data, HTTPURLResponse) {
        let answer = streaming.start(request, maxBytes: maxBytes)
        defer { answer.cancel() }
        var head: HTTPURLResponse?
        var body = Data()
        for try await part in answer.parts {
            switch part {
            case .head(let response): head = response
            case .bytes(let data): body.append(data)
            }
        }
        try Task.checkCancellation()
        guard let head else { throw URLError(.badServerResponse) }
        return (body, head)
    }

    /// A session's settings that neither cache answers nor keep cookies.
    public static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        return configuration
    }
}

extension HTTPURLResponse {
    /// A field's value, by a case-insensitive name.
    func field(_ name: String) -> String? {
        for (key, value) in allHeaderFields {
            if let key = key as? String, key.caseInsensitiveCompare(name) == .orderedSame { return value as? String }
        }
        return nil
    }

    /// `Trips-Revision`, when it is a whole number.
    var tripsRevision: UInt64? { field("Trips-Revision").flatMap { UInt64($0) } }

    /// `Retry-After` in seconds (the service never sends a date), at most a day.
    var retryAfter: Duration? {
        field("Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { .seconds(min(max($0, 0), 86_400)) }
    }
}

extension URLError {
    /// Whether the request may be sent again: no answer came, so it may or may not have
    /// reached the server (a change keeps its idempotency key and is made at most once).
    var isConnectionFailure: Bool {
        switch code {
        case .networkConnectionLost, .cannotConnectToHost, .timedOut, .notConnectedToInternet, .badServerResponse,
            .cannotFindHost, .dnsLookupFailed, .secureConnectionFailed, .resourceUnavailable, .zeroByteResource:
            true
        default: false
        }
    }
}
