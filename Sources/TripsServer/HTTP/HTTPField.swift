/// One header or trailer field line: a name and its value.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-fields
struct HTTPField: Sendable, Hashable {
    var name: Name
    var value: String

    init(name: Name, value: String) {
        self.name = name
        self.value = value
    }

    /// A field name, compared case-insensitively.
    ///
    /// `rawName` keeps the spelling that is written out; `canonicalName` is lowercased
    /// and is what equality and hashing use.
    struct Name: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The name as given, written on the wire.
        let rawName: String
        /// The lowercased name, used for comparison.
        let canonicalName: String

        /// Validates `name` as a token; returns nil for anything else.
        init?(_ name: String) {
            guard HTTPField.isValidToken(name) else { return nil }
            self.init(unchecked: name)
        }

        /// For literals in our own code; an invalid literal is a programming error.
        init(stringLiteral name: String) {
            precondition(HTTPField.isValidToken(name), "\(name) is not a field name token")
            self.init(unchecked: name)
        }

        private init(unchecked name: String) {
            rawName = name
            canonicalName =
                name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
                ? name.lowercased() : name
        }

        /// Builds a name from bytes the parser has already checked to be token characters.
        init(validatedBytes bytes: UnsafeRawBufferPointer) {
            if let common = Self.common(bytes) {
                self = common
                return
            }
            let raw = String(decoding: bytes, as: UTF8.self)
            rawName = raw
            if bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
                canonicalName = String(unsafeUninitializedCapacity: bytes.count) { buffer in
                    for (index, byte) in bytes.enumerated() { buffer[index] = asciiLowercased(byte) }
                    return bytes.count
                }
            } else {
                canonicalName = raw
            }
        }

        var description: String { rawName }

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

        /// Lengths first: most names compared differ in length, and that is cheaper to see than
        /// a string comparison (every field lookup compares against every field of a request).
        static func == (lhs: Name, rhs: Name) -> Bool {
            lhs.canonicalName.utf8.count == rhs.canonicalName.utf8.count && lhs.canonicalName == rhs.canonicalName
        }
        func hash(into hasher: inout Hasher) { hasher.combine(canonicalName) }

        static let accept: Name = "Accept"
        static let acceptLanguage: Name = "Accept-Language"
        static let acceptPatch: Name = "Accept-Patch"
        static let acceptPost: Name = "Accept-Post"
        static let accessControlAllowHeaders: Name = "Access-Control-Allow-Headers"
        static let accessControlAllowMethods: Name = "Access-Control-Allow-Methods"
        static let accessControlAllowOrigin: Name = "Access-Control-Allow-Origin"
        static let accessControlExposeHeaders: Name = "Access-Control-Expose-Headers"
        static let accessControlMaxAge: Name = "Access-Control-Max-Age"
        static let accessControlRequestMethod: Name = "Access-Control-Request-Method"
        static let allow: Name = "Allow"
        static let authorization: Name = "Authorization"
        static let cacheControl: Name = "Cache-Control"
        static let connection: Name = "Connection"
        static let contentLanguage: Name = "Content-Language"
        static let contentLength: Name = "Content-Length"
        static let contentLocation: Name = "Content-Location"
        static let contentSecurityPolicy: Name = "Content-Security-Policy"
        static let contentType: Name = "Content-Type"
        static let date: Name = "Date"
        static let etag: Name = "ETag"
        static let expect: Name = "Expect"
        static let host: Name = "Host"
        static let idempotencyKey: Name = "Idempotency-Key"
        static let ifMatch: Name = "If-Match"
        static let ifNoneMatch: Name = "If-None-Match"
        static let lastEventID: Name = "Last-Event-ID"
        static let lastModified: Name = "Last-Modified"
        static let link: Name = "Link"
        static let location: Name = "Location"
        static let origin: Name = "Origin"
        static let prefer: Name = "Prefer"
        static let preferenceApplied: Name = "Preference-Applied"
        static let referrerPolicy: Name = "Referrer-Policy"
        static let retryAfter: Name = "Retry-After"
        /// Where a browser's request comes from, relative to its target (Fetch Metadata).
        static let secFetchSite: Name = "Sec-Fetch-Site"
        static let server: Name = "Server"
        static let transferEncoding: Name = "Transfer-Encoding"
        /// The list revision a response reflects (and, on a request, the one to wait for).
        static let tripsRevision: Name = "Trips-Revision"
        static let userAgent: Name = "User-Agent"
        static let vary: Name = "Vary"
        static let wwwAuthenticate: Name = "WWW-Authenticate"
        static let xRequestID: Name = "X-Request-ID"
    }

    /// Whether `string` is a non-empty token (RFC 9110 §5.6.2).
    static func isValidToken(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy(isTokenByte)
    }
}
