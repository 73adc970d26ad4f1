/// A request method this server implements.
///
/// A request with any other token is answered 501 by the parser before anything else sees
/// it, so a method is one of `known`, held as its place there: copied and compared as a byte,
/// with no string to count references to. Its name is looked up when it is written.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-methods
@usableFromInline package struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method's place in `known`.
    @usableFromInline let index: UInt8

    /// The method `rawValue` names exactly (methods are case-sensitive); nil for any other
    /// token, or anything that is not one.
    package init?(_ rawValue: String) {
        guard let index = Self.names.firstIndex(of: rawValue) else { return nil }
        self.index = UInt8(index)
    }

    @inlinable init(index: UInt8) {
        self.index = index
    }

    /// The method token.
    package var rawValue: String { Self.names[Int(index)] }

    @usableFromInline package var description: String { rawValue }

    /// Written out and inlinable: the API (another module) compares methods on every request,
    /// and the synthesized one is reached only through the generic `Equatable` witness there.
    @inlinable package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.index == rhs.index
    }

    /// Where the method stands in `known`, for per-request counting and routing.
    @inlinable package var knownIndex: Int { Int(index) }

    /// Whether the method only reads (GET, HEAD, OPTIONS): every other one the API answers
    /// changes something, and needs a token (with tokens) and the page's own origin (from a browser).
    @inlinable package var onlyReads: Bool { self == .get || self == .head || self == .options }

    // Made where they are used, not kept in static constants: inlined, a method is a known
    // byte, and comparing a request's with one costs no lazy initialization check.
    @inlinable package static var get: HTTPMethod { HTTPMethod(index: 0) }
    @inlinable package static var head: HTTPMethod { HTTPMethod(index: 1) }
    @inlinable package static var post: HTTPMethod { HTTPMethod(index: 2) }
    @inlinable package static var put: HTTPMethod { HTTPMethod(index: 3) }
    @inlinable package static var patch: HTTPMethod { HTTPMethod(index: 4) }
    @inlinable package static var delete: HTTPMethod { HTTPMethod(index: 5) }
    @inlinable package static var options: HTTPMethod { HTTPMethod(index: 6) }
    @inlinable package static var trace: HTTPMethod { HTTPMethod(index: 7) }
    @inlinable package static var connect: HTTPMethod { HTTPMethod(index: 8) }
    /// A safe method with content (draft-ietf-httpbis-safe-method-w-body); known, so that a
    /// resource that does not take it answers 405 with `Allow`, not 501.
    @inlinable package static var query: HTTPMethod { HTTPMethod(index: 9) }

    /// The tokens of `known`, in its order.
    private static let names = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "QUERY"]

    /// The methods this server implements; a request with any other token gets 501.
    package static let known: [HTTPMethod] = names.indices.map { HTTPMethod(index: UInt8($0)) }

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
