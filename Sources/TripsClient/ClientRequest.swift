import Foundation

/// One request to the service, before it is sent: a method, a path under the base URL, its
/// query, and for a change the body, its type and the `If-Match` condition.
struct ClientRequest: Sendable {
    var method: String
    var path: String
    var query: [(name: String, value: String)] = []
    var body: [UInt8]?
    var contentType: String?
    var ifMatch: String?
    var headers: [(name: String, value: String)] = []

    /// Whether it changes the list: it then carries an `Idempotency-Key`, the same on every try.
    var isChange: Bool { method != "GET" && method != "HEAD" }

    /// With a JSON body.
    static func json(_ method: String, _ path: String, body: [UInt8], ifMatch: String?) -> ClientRequest {
        ClientRequest(method: method, path: path, body: body, contentType: "application/json", ifMatch: ifMatch)
    }

    /// The URL under `base`: its path segments, then the query with every character a query
    /// value may not hold percent-encoded.
    func url(under base: URL) -> URL? {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else { return nil }
        let basePath =
            components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + path
        components.percentEncodedQuery =
            query.isEmpty ? nil : query.map { "\(Self.escape($0.name))=\(Self.escape($0.value))" }.joined(separator: "&")
        return components.url
    }

    private static let queryValueCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~,"))
        .subtracting(CharacterSet(charactersIn: "\u{80}"..."\u{10FFFF}"))

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? ""
    }
}
