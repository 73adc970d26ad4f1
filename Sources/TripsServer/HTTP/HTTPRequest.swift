/// A complete, parsed request: the layer hands one of these to the handler.
///
/// https://www.rfc-editor.org/rfc/rfc9112#name-request-line
struct HTTPRequest: Sendable, Hashable {
    var method: HTTPMethod
    /// The request target exactly as sent (origin-form `/a?b`, absolute-form, `*`, or authority-form).
    var target: String
    /// The path part of the target, not percent-decoded (`/trips/1` for `/trips/1?x=2`).
    var path: String
    /// The raw query after `?`, without it; nil when the target has no `?`.
    var query: String?
    var version: HTTPVersion
    var headerFields: HTTPFields
    var body: [UInt8]
    /// Whether the client wants the connection kept open after the response:
    /// HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9112#name-persistence
    var keepAlive: Bool

    init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
        headerFields: HTTPFields = [:], body: [UInt8] = [], keepAlive: Bool? = nil
    ) {
        self.method = method
        self.target = target
        let (path, query) = HTTPRequest.split(target: target)
        self.path = path
        self.query = query
        self.version = version
        self.headerFields = headerFields
        self.body = body
        self.keepAlive = keepAlive ?? HTTPRequest.defaultKeepAlive(version: version, fields: headerFields)
    }

    /// The parser's initializer: the target has been split already.
    init(
        method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion,
        headerFields: HTTPFields, body: [UInt8], keepAlive: Bool
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headerFields = headerFields
        self.body = body
        self.keepAlive = keepAlive
    }

    static func defaultKeepAlive(version: HTTPVersion, fields: HTTPFields) -> Bool {
        if fields.listContains(.connection, token: "close") { return false }
        return version == .http1_1 || fields.listContains(.connection, token: "keep-alive")
    }

    /// Splits an origin-form or absolute-form target into path and query.
    static func split(target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if !rest.hasPrefix("/"), let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            rest = rest[rest.index(colon, offsetBy: 3)...]
            if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                rest = rest[slash...]
            } else {
                return ("/", nil)
            }
        }
        guard let mark = rest.firstIndex(of: "?") else { return (String(rest), nil) }
        let path = rest[..<mark]
        return (path.isEmpty ? "/" : String(path), String(rest[rest.index(after: mark)...]))
    }
}
