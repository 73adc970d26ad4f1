/// A request method, a validated token.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-methods
package struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method token exactly as sent; methods are case-sensitive.
    @usableFromInline package let rawValue: String
    /// The method's place in `known` plus one, or 0 for any other: known methods compare by it.
    @usableFromInline let code: UInt8

    /// Validates `rawValue` as a token; returns nil for anything else.
    package init?(_ rawValue: String) {
        guard HTTPField.isValidToken(rawValue) else { return nil }
        self.rawValue = rawValue
        code = Self.known.first { $0.rawValue == rawValue }?.code ?? 0
    }

    private init(known rawValue: String, code: UInt8) {
        self.rawValue = rawValue
        self.code = code
    }

    package var description: String { rawValue }

    /// Written out and inlinable: the API (another module) compares methods on every request,
    /// and the synthesized one is reached only through the generic `Equatable` witness there.
    @inlinable package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.code == rhs.code && (lhs.code != 0 || lhs.rawValue == rhs.rawValue)
    }

    /// Where a known method stands in `known` (0 for any other, as for GET), for per-request
    /// counting and routing.
    package var knownIndex: Int { code == 0 ? 0 : Int(code) - 1 }

    /// Whether the method only reads (GET, HEAD, OPTIONS): every other one the API answers
    /// changes something, and needs a token (with tokens) and the page's own origin (from a browser).
    package var onlyReads: Bool { self == .get || self == .head || self == .options }

    package static let get = HTTPMethod(known: "GET", code: 1)
    package static let head = HTTPMethod(known: "HEAD", code: 2)
    package static let post = HTTPMethod(known: "POST", code: 3)
    package static let put = HTTPMethod(known: "PUT", code: 4)
    package static let patch = HTTPMethod(known: "PATCH", code: 5)
    package static let delete = HTTPMethod(known: "DELETE", code: 6)
    package static let options = HTTPMethod(known: "OPTIONS", code: 7)
    package static let trace = HTTPMethod(known: "TRACE", code: 8)
    package static let connect = HTTPMethod(known: "CONNECT", code: 9)
    /// A safe method with content (draft-ietf-httpbis-safe-method-w-body); known, so that a
    /// resource that does not take it answers 405 with `Allow`, not 501.
    package static let query = HTTPMethod(known: "QUERY", code: 10)

    /// The methods this server implements; a request with any other token gets 501.
    package static let known: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect, .query]

    /// Matches the bytes of a method token against the known set without allocating.
    package static func known(_ bytes: UnsafeRawBufferPointer) -> HTTPMethod? {
        switch bytes.count {
        case 3:
            if bytes.equals("GET") { return .get }
            if bytes.equals("PUT") { return .put }
        case 4:
            if bytes.equals("POST") { return .post }
            if bytes.equals("HEAD") { return .head }
        case 5:
            if bytes.equals("PATCH") { return .patch }
            if bytes.equals("TRACE") { return .trace }
            if bytes.equals("QUERY") { return .query }
        case 6:
            if bytes.equals("DELETE") { return .delete }
        case 7:
            if bytes.equals("OPTIONS") { return .options }
            if bytes.equals("CONNECT") { return .connect }
        default:
            break
        }
        return nil
    }
}
