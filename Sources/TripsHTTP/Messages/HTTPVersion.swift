/// The protocol version of a request: only HTTP/1.0 and HTTP/1.1 are accepted.
///
/// https://www.rfc-editor.org/rfc/rfc9112#name-http-version
@usableFromInline package struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    let major: Int
    let minor: Int

    static let http1_0 = HTTPVersion(major: 1, minor: 0)
    static let http1_1 = HTTPVersion(major: 1, minor: 1)

    @usableFromInline package var description: String { "HTTP/\(major).\(minor)" }
}
