/// A response to write: status, fields and content.
///
/// The connection adds `Date`, `Server`, `Content-Length` and `Connection` itself; fields of
/// those names set here are not written (a `Connection: close` here does close the connection).
/// `body` is an array, copy-on-write: a handler can return a cached response without copying it.
struct HTTPResponse: Sendable, Hashable {
    var status: HTTPStatus
    var headerFields: HTTPFields
    var body: [UInt8]

    init(status: HTTPStatus, headerFields: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }
}
