/// A complete, parsed request: the layer hands one of these to the handler.
///
/// https://www.rfc-editor.org/rfc/rfc9112#name-request-line
@usableFromInline package struct HTTPRequest: Sendable, Hashable {
    /// The fields live in one shared, copy-on-write box, as in swift-nio's `HTTPRequestHead`:
    /// a request passes through the parser's event, the connection and the handler, and each
    /// copy is then one retain instead of one per string and array.
    @usableFromInline final class Storage: @unchecked Sendable {
        // Immutable once shared: setters copy the box first unless it is uniquely referenced.
        @usableFromInline var method: HTTPMethod = .get
        @usableFromInline var target = ""
        @usableFromInline var path = ""
        @usableFromInline var query: String?
        @usableFromInline var version: HTTPVersion = .http1_1
        @usableFromInline var headerFields = HTTPFields()
        @usableFromInline var body: [UInt8] = []
        @usableFromInline var keepAlive = true
        @usableFromInline var namesLoopbackHost = false

        /// Sets every part: a new box's, or one the parser reuses.
        func fill(
            method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion,
            headerFields: HTTPFields, body: [UInt8], keepAlive: Bool, namesLoopbackHost: Bool
        ) {
            self.method = method
            self.target = target
            self.path = path
            self.query = query
            self.version = version
            self.headerFields = headerFields
            self.body = body
            self.keepAlive = keepAlive
            self.namesLoopbackHost = namesLoopbackHost
        }

        func copy() -> Storage {
            let copy = Storage()
            copy.fill(
                method: method, target: target, path: path, query: query, version: version, headerFields: headerFields, body: body,
                keepAlive: keepAlive, namesLoopbackHost: namesLoopbackHost)
            return copy
        }
    }

    // Inlinable getters of a `@usableFromInline` type: the API reads a request's parts in
    // another module, and this compiler inlines no @inlinable member of a package type there
    // unless the type itself is `@usableFromInline` (README, "Crossing a module cheaply").
    @usableFromInline var storage: Storage

    /// The box to write to: this request's own.
    private var unique: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    package var method: HTTPMethod {
        @inlinable get { storage.method }
        set { unique.method = newValue }
    }
    /// The request target exactly as sent (origin-form `/a?b`, absolute-form, `*`, or authority-form).
    package var target: String {
        @inlinable get { storage.target }
        set { unique.target = newValue }
    }
    /// The path part of the target, not percent-decoded (`/trips/1` for `/trips/1?x=2`).
    package var path: String {
        @inlinable get { storage.path }
        set { unique.path = newValue }
    }
    /// The raw query after `?`, without it; nil when the target has no `?`.
    package var query: String? {
        @inlinable get { storage.query }
        set { unique.query = newValue }
    }
    package var version: HTTPVersion {
        @inlinable get { storage.version }
        set { unique.version = newValue }
    }
    package var headerFields: HTTPFields {
        @inlinable get { storage.headerFields }
        set {
            let storage = unique
            storage.headerFields = newValue
            storage.namesLoopbackHost = false  // read from the fields again, if asked
        }
    }
    package var body: [UInt8] {
        @inlinable get { storage.body }
        set { unique.body = newValue }
    }
    /// Whether the client wants the connection kept open after the response:
    /// HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9112#name-persistence
    package var keepAlive: Bool {
        @inlinable get { storage.keepAlive }
        set { unique.keepAlive = newValue }
    }

    /// Whether the parser found the `Host` field naming this machine (`isLoopbackHost`): told
    /// once per distinct `Host` value on a connection there, so that every request's
    /// DNS-rebinding check need not read the field. A cache, where false means not known (a
    /// request not parsed, or whose fields changed since: its `Host` is read then), so left
    /// out of equality.
    @inlinable package var namesLoopbackHost: Bool { storage.namesLoopbackHost }

    package init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
        headerFields: HTTPFields = [:], body: [UInt8] = [], keepAlive: Bool? = nil
    ) {
        let (path, query) = HTTPRequest.split(target: target)
        self.init(
            method: method, target: target, path: path, query: query, version: version, headerFields: headerFields,
            body: body, keepAlive: keepAlive ?? HTTPRequest.defaultKeepAlive(version: version, fields: headerFields))
    }

    /// The target has been split already.
    package init(
        method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion,
        headerFields: HTTPFields, body: [UInt8], keepAlive: Bool
    ) {
        var none: HTTPRequest?
        self.init(
            method: method, target: target, path: path, query: query, version: version, headerFields: headerFields, body: body,
            keepAlive: keepAlive, namesLoopbackHost: false, reusing: &none)
    }

    /// The parser's initializer: the target has been split already. In the box of `spare`
    /// (the request the parser made before) when nothing else holds that one: no allocation.
    package init(
        method: HTTPMethod, target: String, path: String, query: String?, version: HTTPVersion,
        headerFields: HTTPFields, body: [UInt8], keepAlive: Bool, namesLoopbackHost: Bool, reusing spare: inout HTTPRequest?
    ) {
        if spare?.isUnique() == true, let reused = spare.take() {
            storage = reused.storage
        } else {
            storage = Storage()
        }
        storage.fill(
            method: method, target: target, path: path, query: query, version: version, headerFields: headerFields, body: body,
            keepAlive: keepAlive, namesLoopbackHost: namesLoopbackHost)
    }

    // MARK: - Reuse by the parser

    /// The box that holds the request: the same for a request made in the box of the one
    /// before (tests hold it weakly, to see whether the parser kept it).
    var box: AnyObject { storage }

    /// Whether no other copy shares this request's box: then the parser may fill it anew.
    mutating func isUnique() -> Bool { isKnownUniquelyReferenced(&storage) }

    /// Moves the fields out, emptied but keeping their room, for the next request's; only
    /// for a request that `isUnique`.
    mutating func takeEmptyFields() -> HTTPFields {
        var fields = HTTPFields()
        swap(&fields, &storage.headerFields)
        fields.removeAll(keepingCapacity: true)
        return fields
    }

    @usableFromInline package static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.method == rhs.method && lhs.target == rhs.target && lhs.path == rhs.path
                && lhs.query == rhs.query && lhs.version == rhs.version && lhs.headerFields == rhs.headerFields
                && lhs.body == rhs.body && lhs.keepAlive == rhs.keepAlive)
    }

    @usableFromInline package func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(target)
        hasher.combine(path)
        hasher.combine(query)
        hasher.combine(version)
        hasher.combine(headerFields)
        hasher.combine(body)
        hasher.combine(keepAlive)
    }

    package static func defaultKeepAlive(version: HTTPVersion, fields: HTTPFields) -> Bool {
        if fields.listContains(.connection, token: "close") { return false }
        return version == .http1_1 || fields.listContains(.connection, token: "keep-alive")
    }

    /// Splits an origin-form or absolute-form target into path and query.
    package static func split(target: String) -> (path: String, query: String?) {
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
