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
    /// and is what equality and hashing use. Both live in one shared box: a name is copied
    /// into every lookup, and one retain costs less than copying two strings.
    package struct Name: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        private final class Spellings: Sendable {
            let raw: String
            let canonical: String

            init(raw: String, canonical: String) {
                self.raw = raw
                self.canonical = canonical
            }
        }

        private let spellings: Spellings
        /// The name's place in `indexed` (from 1), or 0: a function of `canonicalName`, so
        /// equal names have equal places, two indexed names compare by one byte, and
        /// `HTTPFields` tells from one bit whether it holds an indexed name at all.
        let index: UInt8

        /// The name as given, written on the wire.
        package var rawName: String { spellings.raw }
        /// The lowercased name, used for comparison.
        package var canonicalName: String { spellings.canonical }

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

        private init(raw: String, canonical: String) {
            spellings = Spellings(raw: raw, canonical: canonical)
            index = Self.index(of: canonical)
        }

        private init(unchecked name: String) {
            let hasUppercase = name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
            self.init(raw: name, canonical: hasUppercase ? name.lowercased() : name)
        }

        /// Builds a name from bytes the parser has already checked to be token characters.
        package init(validatedBytes bytes: UnsafeRawBufferPointer) {
            if let common = Self.common(bytes) {
                self = common
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

        /// The names nearly every request carries, spelled the usual way: matched with a length
        /// check and a `memcmp`, they cost no String building. Other spellings go the long way,
        /// so `rawName` is always exactly what was sent.
        private static func common(_ bytes: UnsafeRawBufferPointer) -> Name? {
            switch bytes.count {
            case 4: bytes.equals("Host") ? .host : nil
            case 6: bytes.equals("Accept") ? .accept : nil
            case 10: bytes.equals("User-Agent") ? .userAgent : bytes.equals("Connection") ? .connection : nil
            case 12: bytes.equals("Content-Type") ? .contentType : bytes.equals("X-Request-ID") ? .xRequestID : nil
            case 13: bytes.equals("If-None-Match") ? .ifNoneMatch : nil
            case 14: bytes.equals("Content-Length") ? .contentLength : nil
            default: nil
            }
        }

        /// Indexed names by their index alone; others by length first: most names compared
        /// differ in length, and that is cheaper to see than a string comparison.
        package static func == (lhs: Name, rhs: Name) -> Bool {
            lhs.index == rhs.index
                && (lhs.index != 0
                    || lhs.canonicalName.utf8.count == rhs.canonicalName.utf8.count && lhs.canonicalName == rhs.canonicalName)
        }

        /// The names looked up in nearly every request, or set in nearly every response,
        /// lowercased: each has a bit in `HTTPFields.indexed` (at most 63). Any other name
        /// works the same, found by comparing strings.
        static let indexed: [String] = [
            "accept", "accept-encoding", "accept-language", "access-control-request-method", "authorization", "cache-control",
            "connection", "content-encoding", "content-language", "content-length", "content-type", "cookie", "etag", "expect",
            "host", "idempotency-key", "if-match", "if-none-match", "if-range", "last-event-id", "link", "location", "origin",
            "prefer", "range", "retry-after", "sec-fetch-site", "traceparent", "tracestate", "transfer-encoding",
            "trips-revision", "user-agent", "vary", "x-real-ip", "x-request-id",
        ]

        /// `indexed` by length in bytes, each name with its index.
        private static let indexedByLength: [[(name: String, index: UInt8)]] = {
            var table = Array(repeating: [(name: String, index: UInt8)](), count: indexed.map(\.utf8.count).max()! + 1)
            for (position, name) in indexed.enumerated() { table[name.utf8.count].append((name, UInt8(position + 1))) }
            return table
        }()

        private static func index(of canonicalName: String) -> UInt8 {
            let length = canonicalName.utf8.count
            guard length < indexedByLength.count else { return 0 }
            return indexedByLength[length].first { $0.name == canonicalName }?.index ?? 0
        }
        package func hash(into hasher: inout Hasher) { hasher.combine(canonicalName) }

        package static let accept: Name = "Accept"
        package static let acceptEncoding: Name = "Accept-Encoding"
        package static let acceptLanguage: Name = "Accept-Language"
        package static let acceptPatch: Name = "Accept-Patch"
        package static let acceptPost: Name = "Accept-Post"
        package static let acceptRanges: Name = "Accept-Ranges"
        package static let accessControlAllowHeaders: Name = "Access-Control-Allow-Headers"
        package static let accessControlAllowMethods: Name = "Access-Control-Allow-Methods"
        package static let accessControlAllowOrigin: Name = "Access-Control-Allow-Origin"
        package static let accessControlExposeHeaders: Name = "Access-Control-Expose-Headers"
        package static let accessControlMaxAge: Name = "Access-Control-Max-Age"
        package static let accessControlRequestMethod: Name = "Access-Control-Request-Method"
        package static let allow: Name = "Allow"
        package static let authorization: Name = "Authorization"
        package static let cacheControl: Name = "Cache-Control"
        package static let connection: Name = "Connection"
        package static let contentEncoding: Name = "Content-Encoding"
        package static let contentLanguage: Name = "Content-Language"
        package static let contentLength: Name = "Content-Length"
        package static let contentLocation: Name = "Content-Location"
        package static let contentRange: Name = "Content-Range"
        package static let contentSecurityPolicy: Name = "Content-Security-Policy"
        package static let contentType: Name = "Content-Type"
        /// A browser's cookies for this site (RFC 6265 §5.4).
        package static let cookie: Name = "Cookie"
        package static let date: Name = "Date"
        package static let etag: Name = "ETag"
        package static let expect: Name = "Expect"
        package static let host: Name = "Host"
        package static let idempotencyKey: Name = "Idempotency-Key"
        package static let ifMatch: Name = "If-Match"
        package static let ifNoneMatch: Name = "If-None-Match"
        package static let ifRange: Name = "If-Range"
        package static let lastEventID: Name = "Last-Event-ID"
        package static let lastModified: Name = "Last-Modified"
        package static let link: Name = "Link"
        package static let location: Name = "Location"
        package static let origin: Name = "Origin"
        package static let prefer: Name = "Prefer"
        package static let range: Name = "Range"
        /// What is left of a rate limit's quota now (draft-ietf-httpapi-ratelimit-headers).
        package static let rateLimit: Name = "RateLimit"
        /// The rate limits a server applies, by name (draft-ietf-httpapi-ratelimit-headers).
        package static let rateLimitPolicy: Name = "RateLimit-Policy"
        package static let preferenceApplied: Name = "Preference-Applied"
        package static let referrerPolicy: Name = "Referrer-Policy"
        package static let retryAfter: Name = "Retry-After"
        /// Where a browser's request comes from, relative to its target (Fetch Metadata).
        package static let secFetchSite: Name = "Sec-Fetch-Site"
        package static let server: Name = "Server"
        package static let setCookie: Name = "Set-Cookie"
        /// W3C Trace Context: the trace a request belongs to, and the span it came from.
        package static let traceparent: Name = "traceparent"
        /// W3C Trace Context: vendors' own trace data, passed through.
        package static let tracestate: Name = "tracestate"
        package static let transferEncoding: Name = "Transfer-Encoding"
        /// The list revision a response reflects (and, on a request, the one to wait for).
        package static let tripsRevision: Name = "Trips-Revision"
        /// How many trips a paged view holds in all, asked for with `Prefer: count=exact`.
        package static let tripsTotal: Name = "Trips-Total"
        package static let userAgent: Name = "User-Agent"
        package static let vary: Name = "Vary"
        package static let wwwAuthenticate: Name = "WWW-Authenticate"
        /// The client's address, as a proxy in front of the server saw it (nginx's
        /// `proxy_set_header X-Real-IP $remote_addr`); taken only from a trusted proxy.
        package static let xRealIP: Name = "X-Real-IP"
        package static let xRequestID: Name = "X-Request-ID"
    }

    /// Whether `string` is a non-empty token (RFC 9110 §5.6.2).
    package static func isValidToken(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy(isTokenByte)
    }
}
