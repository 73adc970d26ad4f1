/// One header or trailer field line: a name and its value.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-fields
package struct HTTPField: Sendable, Hashable {
    package var name: Name
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
    package struct Name: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        private final class Spellings: Sendable {
            let raw: String
            let canonical: String

            init(raw: String, canonical: String) {
                self.raw = raw
                self.canonical = canonical
            }
        }

        /// Nil for an indexed name in its usual spelling, which its `Indexed` case gives.
        private let spellings: Spellings?
        /// The name's `Indexed` case (from 1), or 0: a function of `canonicalName`, so equal
        /// names have equal places, two indexed names compare by one byte, and `HTTPFields`
        /// tells from one bit whether it holds an indexed name at all.
        let index: UInt8

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
        package init(stringLiteral name: String) {
            precondition(HTTPField.isValidToken(name), "\(name) is not a field name token")
            self.init(unchecked: name)
        }

        /// An indexed name in its usual spelling.
        init(_ indexed: Indexed) {
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

        package var description: String { rawName }

        /// Indexed names by their index alone; others by length first: most names compared
        /// differ in length, and that is cheaper to see than a string comparison.
        package static func == (lhs: Name, rhs: Name) -> Bool {
            lhs.index == rhs.index
                && (lhs.index != 0
                    || lhs.canonicalName.utf8.count == rhs.canonicalName.utf8.count && lhs.canonicalName == rhs.canonicalName)
        }

        package func hash(into hasher: inout Hasher) {
            if index != 0 { hasher.combine(index) } else { hasher.combine(canonicalName) }
        }

        package static let accept = Name(.accept)
        package static let acceptEncoding = Name(.acceptEncoding)
        package static let acceptLanguage = Name(.acceptLanguage)
        package static let acceptPatch: Name = "Accept-Patch"
        package static let acceptPost: Name = "Accept-Post"
        package static let acceptRanges: Name = "Accept-Ranges"
        package static let accessControlAllowHeaders: Name = "Access-Control-Allow-Headers"
        package static let accessControlAllowMethods: Name = "Access-Control-Allow-Methods"
        package static let accessControlAllowOrigin: Name = "Access-Control-Allow-Origin"
        package static let accessControlExposeHeaders: Name = "Access-Control-Expose-Headers"
        package static let accessControlMaxAge: Name = "Access-Control-Max-Age"
        package static let accessControlRequestMethod = Name(.accessControlRequestMethod)
        package static let allow: Name = "Allow"
        package static let authorization = Name(.authorization)
        package static let cacheControl = Name(.cacheControl)
        package static let connection = Name(.connection)
        package static let contentEncoding = Name(.contentEncoding)
        package static let contentLanguage = Name(.contentLanguage)
        package static let contentLength = Name(.contentLength)
        package static let contentLocation: Name = "Content-Location"
        package static let contentRange: Name = "Content-Range"
        package static let contentSecurityPolicy: Name = "Content-Security-Policy"
        package static let contentType = Name(.contentType)
        /// A browser's cookies for this site (RFC 6265 §5.4).
        package static let cookie = Name(.cookie)
        package static let date = Name(.date)
        package static let etag = Name(.etag)
        package static let expect = Name(.expect)
        package static let host = Name(.host)
        package static let idempotencyKey = Name(.idempotencyKey)
        package static let ifMatch = Name(.ifMatch)
        package static let ifNoneMatch = Name(.ifNoneMatch)
        package static let ifRange = Name(.ifRange)
        package static let lastEventID = Name(.lastEventID)
        package static let lastModified: Name = "Last-Modified"
        package static let link = Name(.link)
        package static let location = Name(.location)
        package static let origin = Name(.origin)
        package static let prefer = Name(.prefer)
        package static let range = Name(.range)
        /// What is left of a rate limit's quota now (draft-ietf-httpapi-ratelimit-headers).
        package static let rateLimit: Name = "RateLimit"
        /// The rate limits a server applies, by name (draft-ietf-httpapi-ratelimit-headers).
        package static let rateLimitPolicy: Name = "RateLimit-Policy"
        package static let preferenceApplied: Name = "Preference-Applied"
        package static let referrerPolicy: Name = "Referrer-Policy"
        package static let retryAfter = Name(.retryAfter)
        /// Where a browser's request comes from, relative to its target (Fetch Metadata).
        package static let secFetchSite = Name(.secFetchSite)
        package static let server = Name(.server)
        package static let setCookie: Name = "Set-Cookie"
        /// W3C Trace Context: the trace a request belongs to, and the span it came from.
        package static let traceparent = Name(.traceparent)
        /// W3C Trace Context: vendors' own trace data, passed through.
        package static let tracestate = Name(.tracestate)
        package static let transferEncoding = Name(.transferEncoding)
        /// The list revision a response reflects (and, on a request, the one to wait for).
        package static let tripsRevision = Name(.tripsRevision)
        /// How many trips a paged view holds in all, asked for with `Prefer: count=exact`.
        package static let tripsTotal: Name = "Trips-Total"
        package static let userAgent = Name(.userAgent)
        package static let vary = Name(.vary)
        package static let wwwAuthenticate: Name = "WWW-Authenticate"
        /// The client's address, as a proxy in front of the server saw it (nginx's
        /// `proxy_set_header X-Real-IP $remote_addr`); taken only from a trusted proxy.
        package static let xRealIP = Name(.xRealIP)
        package static let xContentTypeOptions = Name(.xContentTypeOptions)
        package static let xRequestID = Name(.xRequestID)
    }

    /// Whether `string` is a non-empty token (RFC 9110 §5.6.2).
    package static func isValidToken(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy(isTokenByte)
    }
}
