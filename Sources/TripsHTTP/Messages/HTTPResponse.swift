/// A response to write: status, fields and content.
///
/// The connection adds `Date`, `Server`, `X-Content-Type-Options`, `Content-Length` and
/// `Connection` itself; fields of those names set here are not written (a `Connection: close` here does close the connection).
/// `body` is an array, copy-on-write: a handler can return a cached response without copying it.
package struct HTTPResponse: Sendable, Hashable {
    /// Status, fields, content and prepared head live in one shared, copy-on-write box, as a
    /// request's do: a response passes from a cache through the handler's reply and the
    /// connection, and each copy is then one retain instead of one per part.
    private final class Storage: @unchecked Sendable {
        // Immutable once shared: every change goes through `unique`, which copies a shared box.
        var status: HTTPStatus
        var headerFields: HTTPFields
        var body: [UInt8]
        /// The status line and field lines, serialized by `prepared()`; any change drops them.
        var preparedHead: PreparedHTTPHead?

        init(status: HTTPStatus, headerFields: HTTPFields, body: [UInt8], preparedHead: PreparedHTTPHead?) {
            self.status = status
            self.headerFields = headerFields
            self.body = body
            self.preparedHead = preparedHead
        }
    }

    private var storage: Storage

    /// The box to change, this response's own, with its prepared head dropped: whatever
    /// changes, the head no longer says it.
    private var unique: Storage {
        mutating get {
            if isKnownUniquelyReferenced(&storage) {
                storage.preparedHead = nil
            } else {
                storage = Storage(status: storage.status, headerFields: storage.headerFields, body: storage.body, preparedHead: nil)
            }
            return storage
        }
    }

    package var status: HTTPStatus {
        get { storage.status }
        set { unique.status = newValue }
    }
    /// Changed in place (`_modify`): a handler that adds a field or appends content does not
    /// copy what is already there.
    package var headerFields: HTTPFields {
        get { storage.headerFields }
        _modify {
            let storage = unique
            yield &storage.headerFields
        }
    }
    package var body: [UInt8] {
        get { storage.body }
        _modify {
            let storage = unique
            yield &storage.body
        }
    }
    var preparedHead: PreparedHTTPHead? { storage.preparedHead }

    package init(status: HTTPStatus, headerFields: HTTPFields = [:], body: [UInt8] = []) {
        storage = Storage(status: status, headerFields: headerFields, body: body, preparedHead: nil)
    }

    /// This response with its head serialized once, for a response that is sent many times
    /// (a cached representation): writing it then copies bytes instead of formatting fields.
    package func prepared() -> HTTPResponse {
        let response = HTTPResponse(status: status, headerFields: headerFields, body: body)
        response.storage.preparedHead = PreparedHTTPHead(self)
        return response
    }

    /// Whether `prepared()` made it, and no change since undid that.
    package var isPrepared: Bool { preparedHead != nil }

    /// About the bytes it holds: its content, its fields, and its head as written when it
    /// is prepared. What a cache counts against its budget.
    package var byteCount: Int {
        let fields = headerFields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count }
        return body.count + fields + (preparedHead?.byteCount ?? 0)
    }

    /// Equal when status, fields and content are; whether the head is prepared does not matter.
    package static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.headerFields == rhs.headerFields && lhs.body == rhs.body
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(headerFields)
        hasher.combine(body)
    }
}

/// The parts of a response's head that do not change from one sending to the next: the status
/// line, and its own field lines with Content-Length. Date, Server, X-Content-Type-Options,
/// X-Request-ID and Connection are written around them per request.
final class PreparedHTTPHead: Sendable {
    /// `HTTP/1.1 200 OK\r\n`
    let statusLine: [UInt8]
    /// The handler's fields (minus those the connection owns) and Content-Length, each with
    /// CRLF, and the CRLF that ends the head (up to `headEnd`: one append when no Connection
    /// field goes before it); then the content, when it is at most `contentKeptAfterHead`
    /// bytes: most cached answers (a trip) go out with one append where they took two, at
    /// about a hundred instructions each. A larger content's copy costs more than an append,
    /// so it is not kept twice.
    let fieldLinesAndContent: [UInt8]
    /// Where the head ends in `fieldLinesAndContent`.
    let headEnd: Int
    /// Whether the content follows the head in `fieldLinesAndContent` (an empty one needs not).
    let keepsContent: Bool
    /// Whether the handler asked to close the connection with `Connection: close`.
    let asksToClose: Bool

    static let contentKeptAfterHead = 4096

    init(_ response: HTTPResponse) {
        var statusLine: [UInt8] = []
        response.appendStatusLine(to: &statusLine)
        var fieldLines: [UInt8] = []
        response.appendFieldLines(to: &fieldLines)
        fieldLines.append(contentsOf: "\r\n".utf8)
        self.statusLine = statusLine
        headEnd = fieldLines.count
        let content = response.body
        keepsContent = response.status.allowsContent && !content.isEmpty && content.count <= Self.contentKeptAfterHead
        if keepsContent { fieldLines += content }
        fieldLinesAndContent = fieldLines
        asksToClose = response.computeAsksToClose()
    }

    /// The field lines and the CRLF that ends the head.
    var fieldLinesEnded: ArraySlice<UInt8> { fieldLinesAndContent[..<headEnd] }

    /// The bytes it holds besides the response's own fields and content.
    var byteCount: Int { statusLine.count + fieldLinesAndContent.count }
}
