/// A content coding this server sends (RFC 9110 §8.4.1): the content as it is, or gzip.
/// Its raw value numbers it, for the caches that keep an answer per coding.
package enum ContentCoding: Int, Sendable, Hashable, CaseIterable {
    case identity = 0
    case gzip = 1

    /// Its name in `Content-Encoding` and `Accept-Encoding`.
    /// https://www.rfc-editor.org/rfc/rfc9110#name-content-codings
    package var name: String {
        switch self {
        case .identity: "identity"
        case .gzip: "gzip"
        }
    }
}
