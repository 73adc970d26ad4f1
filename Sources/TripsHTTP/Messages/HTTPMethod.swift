/// A request method, a validated token.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-methods
package struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method token exactly as sent; methods are case-sensitive.
    @usableFromInline package let rawValue: String

    /// Validates `rawValue` as a token; returns nil for anything else.
    package init?(_ rawValue: String) {
        guard HTTPField.isValidToken(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    private init(known rawValue: String) {
        self.rawValue = rawValue
    }

    package var description: String { rawValue }

    /// Written out and inlinable: the API (another module) compares methods on every request,
    /// and the synthesized one is reached only through the generic `Equatable` witness there.
    @inlinable package static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Where a known method stands in `known` (0 for any other), told by its length and first
    /// letter: no string comparison, for per-request counting.
    package var knownIndex: Int {
        let utf8 = rawValue.utf8
        switch (utf8.count, utf8.first) {
        case (3, UInt8(ascii: "G")): return 0
        case (4, UInt8(ascii: "H")): return 1
        case (4, UInt8(ascii: "P")): return 2
        case (3, UInt8(ascii: "P")): return 3
        case (5, UInt8(ascii: "P")): return 4
        case (6, UInt8(ascii: "D")): return 5
        case (7, UInt8(ascii: "O")): return 6
        case (5, UInt8(ascii: "T")): return 7
        case (7, UInt8(ascii: "C")): return 8
        case (5, UInt8(ascii: "Q")): return 9
        default: return 0
        }
    }

    /// Whether the method only reads (GET, HEAD, OPTIONS): every other one the API answers
    /// changes something, and needs a token (with tokens) and the page's own origin (from a browser).
    package var onlyReads: Bool { self == .get || self == .head || self == .options }

    package static let get = HTTPMethod(known: "GET")
    package static let head = HTTPMethod(known: "HEAD")
    package static let post = HTTPMethod(known: "POST")
    package static let put = HTTPMethod(known: "PUT")
    package static let patch = HTTPMethod(known: "PATCH")
    package static let delete = HTTPMethod(known: "DELETE")
    package static let options = HTTPMethod(known: "OPTIONS")
    package static let trace = HTTPMethod(known: "TRACE")
    package static let connect = HTTPMethod(known: "CONNECT")
    /// A safe method with content (draft-ietf-httpbis-safe-method-w-body); known, so that a
    /// resource that does not take it answers 405 with `Allow`, not 501.
    package static let query = HTTPMethod(known: "QUERY")

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
