extension HTTPField.Name {
    /// The names looked up in nearly every request, or written in nearly every response: each
    /// has a bit in `HTTPFields.indexed` (at most 63), and in its usual spelling it is its
    /// number alone (`HTTPField.Name.init(_:)`). Any other name works the same, found by
    /// comparing strings.
    @usableFromInline enum Indexed: UInt8, CaseIterable {
        case accept = 1
        case acceptEncoding, acceptLanguage, accessControlRequestMethod, authorization, cacheControl
        case connection, contentEncoding, contentLanguage, contentLength, contentType, cookie, date, etag, expect
        case host, idempotencyKey, ifMatch, ifNoneMatch, ifRange, lastEventID, link, location, origin, prefer, range
        case retryAfter, secFetchSite, server, traceparent, tracestate, transferEncoding, tripsRevision, userAgent
        case vary, xContentTypeOptions, xRealIP, xRequestID

        /// The usual spelling, written on the wire.
        var spelling: String {
            switch self {
            case .accept: "Accept"
            case .acceptEncoding: "Accept-Encoding"
            case .acceptLanguage: "Accept-Language"
            case .accessControlRequestMethod: "Access-Control-Request-Method"
            case .authorization: "Authorization"
            case .cacheControl: "Cache-Control"
            case .connection: "Connection"
            case .contentEncoding: "Content-Encoding"
            case .contentLanguage: "Content-Language"
            case .contentLength: "Content-Length"
            case .contentType: "Content-Type"
            case .cookie: "Cookie"
            case .date: "Date"
            case .etag: "ETag"
            case .expect: "Expect"
            case .host: "Host"
            case .idempotencyKey: "Idempotency-Key"
            case .ifMatch: "If-Match"
            case .ifNoneMatch: "If-None-Match"
            case .ifRange: "If-Range"
            case .lastEventID: "Last-Event-ID"
            case .link: "Link"
            case .location: "Location"
            case .origin: "Origin"
            case .prefer: "Prefer"
            case .range: "Range"
            case .retryAfter: "Retry-After"
            case .secFetchSite: "Sec-Fetch-Site"
            case .server: "Server"
            case .traceparent: "traceparent"
            case .tracestate: "tracestate"
            case .transferEncoding: "Transfer-Encoding"
            case .tripsRevision: "Trips-Revision"
            case .userAgent: "User-Agent"
            case .vary: "Vary"
            case .xContentTypeOptions: "X-Content-Type-Options"
            case .xRealIP: "X-Real-IP"
            case .xRequestID: "X-Request-ID"
            }
        }

        /// Each case's name lowercased, at its raw value (0: none).
        static let canonicalNames: [String] = [""] + allCases.map { $0.spelling.lowercased() }

        /// `canonicalNames` by length in bytes, each with its index.
        private static let byLength: [[(name: String, index: UInt8)]] = {
            var table = Array(repeating: [(name: String, index: UInt8)](), count: canonicalNames.map(\.utf8.count).max()! + 1)
            for name in allCases {
                let canonical = canonicalNames[Int(name.rawValue)]
                table[canonical.utf8.count].append((canonical, name.rawValue))
            }
            return table
        }()

        /// The index of a lowercased name, or 0 when it is not indexed.
        static func index(of canonicalName: String) -> UInt8 {
            let length = canonicalName.utf8.count
            guard length < byLength.count else { return 0 }
            return byLength[length].first { $0.name == canonicalName }?.index ?? 0
        }

        /// The names nearly every request carries, in their usual spelling: matched with a
        /// length check and a `memcmp`, they cost no String building. Other spellings go the
        /// long way, so `rawName` is always exactly what was sent.
        static func usuallySpelled(_ bytes: UnsafeRawBufferPointer) -> Indexed? {
            switch bytes.count {
            case 4: bytes.equals("Host") ? .host : nil
            case 6: bytes.equals("Accept") ? .accept : bytes.equals("Cookie") ? .cookie : bytes.equals("Origin") ? .origin : nil
            case 10: bytes.equals("User-Agent") ? .userAgent : bytes.equals("Connection") ? .connection : nil
            case 12: bytes.equals("Content-Type") ? .contentType : bytes.equals("X-Request-ID") ? .xRequestID : nil
            case 13: bytes.equals("If-None-Match") ? .ifNoneMatch : bytes.equals("Authorization") ? .authorization : nil
            case 14: bytes.equals("Content-Length") ? .contentLength : nil
            case 15: bytes.equals("Accept-Encoding") ? .acceptEncoding : bytes.equals("Accept-Language") ? .acceptLanguage : nil
            default: nil
            }
        }
    }
}
