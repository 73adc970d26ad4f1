/// One header or trailer field line: a name and its value.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-fields
@usableFromInline package struct HTTPField: Sendable, Hashable {
    @usableFromInline package var name: Name
    package var value: String

    package init(name: Name, value: String) {
        self.name = name
        self.value = value
    }

    /// A field name, compared case-insensitively.
    ///
    /// `rawName` keeps the spelling that is written out; `canonicalName` is lowercased
    /// and is what equality and hashing use. An `Indexed` name in its usual spelling is that
    /// case's number alone: the names a request is read by, and those nearly every message
    /// carries, are copied, compared and dropped without a retain. Any other name keeps both
    /// spellings in one shared box: one retain costs less than copying two strings.
    @usableFromInline package struct Name: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        @usableFromInline final class Spellings: Sendable {
            let raw: String
            let canonical: String

            init(raw: String, canonical: String) {
                self.raw = raw
                self.canonical = canonical
            }
        }

        /// Nil for an indexed name in its usual spelling, which its `Indexed` case gives.
        @usableFromInline let spellings: Spellings?
        /// The name's `Indexed` case (from 1), or 0: a function of `canonicalName`, so equal
        /// names have equal places, two indexed names compare by one byte, and `HTTPFields`
        /// tells from one bit whether it holds an indexed name at all.
        @usableFromInline let index: UInt8

        /// The name as given, written on the wire.
        package var rawName: String { spellings?.raw ?? Indexed(rawValue: index)!.spelling }
        /// The lowercased name, used for comparison.
        package var canonicalName: String { spellings?.canonical ?? Indexed.canonicalNames[Int(index)] }

        /// Validates `name` as a token; returns nil for anything else.
        package init?(_ name: String) {
            guard HTTPField.isValidToken(name) else { return nil }
            self.init(unchecked: name)
        }

        /// For literals in our own code; an invalid literal is a programming error.
        @usableFromInline package init(stringLiteral name: String) {
            precondition(HTTPField.isValidToken(name), "\(name) is not a field name token")
            self.init(unchecked: name)
        }

        /// An indexed name in its usual spelling.
        @inlinable init(_ indexed: Indexed) {
            spellings = nil
            index = indexed.rawValue
        }

        private init(raw: String, canonical: String) {
            index = Indexed.index(of: canonical)
            if index != 0, raw == Indexed(rawValue: index)!.spelling {
                spellings = nil
            } else {
                spellings = Spellings(raw: raw, canonical: canonical)
            }
        }

        private init(unchecked name: String) {
            let hasUppercase = name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
            self.init(raw: name, canonical: hasUppercase ? name.lowercased() : name)
        }

        /// Builds a name from bytes the parser has already checked to be token characters.
        package init(validatedBytes bytes: UnsafeRawBufferPointer) {
            if let common = Indexed.usuallySpelled(bytes) {
                self.init(common)
                return
            }
            let raw = String(decoding: bytes, as: UTF8.self)
            guard bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
                self.init(raw: raw, canonical: raw)
                return
            }
            let canonical = String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for (index, byte) in bytes.enumerated() { buffer[index] = asciiLowercased(byte) }
                return bytes.count
            }
            self.init(raw: raw, canonical: canonical)
        }

        @usableFromInline package var description: String { rawName }

        /// Indexed names by their index alone; others by length first: most names compared
        /// differ in length, and that is cheaper to see than a string comparison.
        @usableFromInline package static func == (lhs: Name, rhs: Name) -> Bool {
            lhs.index == rhs.index
                && (lhs.index != 0
                    || lhs.canonicalName.utf8.count == rhs.canonicalName.utf8.count && lhs.canonicalName == rhs.canonicalName)
        }

        @usableFromInline package func hash(into hasher: inout Hasher) {
            if index != 0 { hasher.combine(index) } else { hasher.combine(canonicalName) }
        }

        // The indexed names are made where they are used, not kept in static constants:
        // inlined, a name is a known index without a box, so reading a request's field by
        // name costs no lazy initialization check, no retain and no release.
        @inlinable package static var accept: Name { Name(.accept) }
        @inlinable package static var acceptEncoding: Name { Name(.acceptEncoding) }
        @inlinable package static var acceptLanguage: Name { Name(.acceptLanguage) }
        package static let acceptPatch: Name = "Accept-Patch"
        package static let acceptPost: Name = "Accept-Post"
        package static let acceptRanges: Name = "Accept-Ranges"
        package static let accessControlAllowHeaders: Name = "Access-Control-Allow-Headers"
        package static let accessControlAllowMethods: Name = "Access-Control-Allow-Methods"
        package static let accessControlAllowOrigin: Name = "Access-Control-Allow-Origin"
        package static let accessControlExposeHeaders: Name = "Access-Control-Expose-Headers"
        package static let accessControlMaxAge: Name = "Access-Control-Max-Age"
        @inlinable package static var accessControlRequestMethod: Name { Name(.accessControlRequestMethod) }
        package static let allow: Name = "Allow"
        @inlinable package static var authorization: Name { Name(.authorization) }
        @inlinable package static var cacheControl: Name { Name(.cacheControl) }
        @inlinable package static var connection: Name { Name(.connection) }
        @inlinable package static var contentEncoding: Name { Name(.contentEncoding) }
        @inlinable package static var contentLanguage: Name { Name(.contentLanguage) }
        @inlinable package static var contentLength: Name { Name(.contentLength) }
        package static let contentLocation: Name = "Content-Location"
        package static let contentRange: Name = "Content-Range"
        package static let contentSecurityPolicy: Name = "Content-Security-Policy"
        @inlinable package static var contentType: Name { Name(.contentType) }
        /// A browser's cookies for this site (RFC 6265 §5.4).
        @inlinable package static var cookie: Name { Name(.cookie) }
        @inlinable package static var date: Name { Name(.date) }
        @inlinable package static var etag: Name { Name(.etag) }
        @inlinable package static var expect: Name { Name(.expect) }
        @inlinable package static var host: Name { Name(.host) }
        @inlinable package static var idempotencyKey: Name { Name(.idempotencyKey) }
        @inlinable package static var ifMatch: Name { Name(.ifMatch) }
        @inlinable package static var ifNoneMatch: Name { Name(.ifNoneMatch) }
        @inlinable package static var ifRange: Name { Name(.ifRange) }
        @inlinable package static var lastEventID: Name { Name(.lastEventID) }
        package static let lastModified: Name = "Last-Modified"
        @inlinable package static var link: Name { Name(.link) }
        @inlinable package static var location: Name { Name(.location) }
        @inlinable package static var origin: Name { Name(.origin) }
        @inlinable package static var prefer: Name { Name(.prefer) }
        @inlinable package static var range: Name { Name(.range) }
        /// What is left of a rate limit's quota now (draft-ietf-httpapi-ratelimit-headers).
        package static let rateLimit: Name = "RateLimit"
        /// The rate limits a server applies, by name (draft-ietf-httpapi-ratelimit-headers).
        package static let rateLimitPolicy: Name = "RateLimit-Policy"
        package static let preferenceApplied: Name = "Preference-Applied"
        package static let referrerPolicy: Name = "Referrer-Policy"
        @inlinable package static var retryAfter: Name { Name(.retryAfter) }
        /// Where a browser's request comes from, relative to its target (Fetch Metadata).
        @inlinable package static var secFetchSite: Name { Name(.secFetchSite) }
        @inlinable package static var server: Name { Name(.server) }
        package static let setCookie: Name = "Set-Cookie"
        /// W3C Trace Context: the trace a request belongs to, and the span it came from.
        @inlinable package static var traceparent: Name { Name(.traceparent) }
        /// W3C Trace Context: vendors' own trace data, passed through.
        @inlinable package static var tracestate: Name { Name(.tracestate) }
        @inlinable package static var transferEncoding: Name { Name(.transferEncoding) }
        /// The list revision a response reflects (and, on a request, the one to wait for).
        @inlinable package static var tripsRevision: Name { Name(.tripsRevision) }
        /// How many trips a paged view holds in all, asked for with `Prefer: count=exact`.
        package static let tripsTotal: Name = "Trips-Total"
        @inlinable package static var userAgent: Name { Name(.userAgent) }
        @inlinable package static var vary: Name { Name(.vary) }
        package static let wwwAuthenticate: Name = "WWW-Authenticate"
        /// The client's address, as a proxy in front of the server saw it (nginx's
        /// `proxy_set_header X-Real-IP $remote_addr`); taken only from a trusted proxy.
        @inlinable package static var xRealIP: Name { Name(.xRealIP) }
        @inlinable package static var xContentTypeOptions: Name { Name(.xContentTypeOptions) }
        @inlinable package static var xRequestID: Name { Name(.xRequestID) }
    }

    /// Whether `string` is a non-empty token (RFC 9110 §5.6.2).
    package static func isValidToken(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy(isTokenByte)
    }
}
