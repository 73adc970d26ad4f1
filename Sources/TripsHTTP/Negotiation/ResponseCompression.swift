import TripsFormats
import TripsPlatform

/// Which answers go gzip-compressed, and how (RFC 9110 §8.4.1.3 and §12.5.3).
///
/// Text, JSON (problem documents too) and YAML of `minimumBytes` to `maximumBytes` go as
/// gzip to a client whose `Accept-Encoding` prefers it, with `Content-Encoding: gzip` and
/// the ETag of that coding (`EntityTag.coded`). Every answer of those types says
/// `Vary: Accept-Encoding`, compressed or not, since the request's field chose. Never the
/// change feed (`text/event-stream`, whose events must reach the client as each is written),
/// images, a part of the content (206), or an answer that already has a coding.
package struct ResponseCompression: Sendable, Hashable {
    /// Smaller content goes as it is: 1 KiB. Setting zlib up clears a 64 KiB table (about
    /// 180,000 instructions, measured with callgrind), several times what a cached read of a
    /// trip costs, to save a few hundred bytes.
    package var minimumBytes = 1024
    /// Larger content goes as it is: 64 MiB, a list of some 300,000 trips. Compressing takes
    /// the event loop about 35 instructions a byte, so this bounds one answer's compression to
    /// about a second of a loop.
    package var maximumBytes = 64 << 20
    /// zlib's level: 3, the smallest output of its fast levels (1 to 3). On the list of 1,000
    /// trips as JSON, level 3 sends 11.2% of the bytes for 6.8 million instructions; level 6
    /// 8.9% for 12.5 million.
    package var level: Int32 = 3

    package init() {}

    /// The coding an answer to `request` goes in when its content can be compressed.
    /// Without `Accept-Encoding`, identity.
    package static func coding(for request: HTTPRequest) -> ContentCoding {
        AcceptEncoding(in: request.headerFields)?.preferred ?? .identity
    }

    /// Whether content of this type is compressed: text but the event stream, JSON (any
    /// `+json`), and YAML; never images, which are compressed already or tiny.
    package static func isCompressible(_ mediaType: MediaType) -> Bool {
        isCompressible(type: Substring(mediaType.type), subtype: Substring(mediaType.subtype))
    }

    private static func isCompressible(type: Substring, subtype: Substring) -> Bool {
        switch type {
        case "text": subtype != "event-stream"
        case "application": subtype == "json" || subtype.hasSuffix("+json") || subtype == "yaml"
        default: false
        }
    }

    /// Whether a `Content-Type` value names a type `isCompressible` takes, read in place
    /// ignoring case (`equalsCaseInsensitive`): every answer not prepared passes here, so no
    /// lowercased copy is made.
    private static func isCompressible(contentType: String) -> Bool {
        var value = contentType
        return value.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            let end = raw.firstIndex(of: UInt8(ascii: ";")) ?? raw.count
            guard let slash = raw[..<end].firstIndex(of: UInt8(ascii: "/")) else { return false }
            let typeStart = raw[..<slash].firstIndex { $0 != UInt8(ascii: " ") } ?? slash
            let subtypeEnd = raw[(slash + 1)..<end].firstIndex(of: UInt8(ascii: " ")) ?? end
            let type = UnsafeRawBufferPointer(rebasing: raw[typeStart..<slash])
            let subtype = UnsafeRawBufferPointer(rebasing: raw[(slash + 1)..<subtypeEnd])
            if equalsCaseInsensitive(type, "text") { return !equalsCaseInsensitive(subtype, "event-stream") }
            guard equalsCaseInsensitive(type, "application") else { return false }
            return equalsCaseInsensitive(subtype, "json") || equalsCaseInsensitive(subtype, "yaml")
                || (subtype.count >= 5 && equalsCaseInsensitive(UnsafeRawBufferPointer(rebasing: subtype.suffix(5)), "+json"))
        }
    }

    /// `response` for `request`'s client, as `encode(_:as:)` makes it. A `prepared()`
    /// response goes as it is, without reading `Accept-Encoding`: only a cache prepares
    /// one, and it keeps an answer per coding, each encoded before it was prepared.
    package func encode(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard !response.isPrepared else { return response }
        return encode(response, as: Self.coding(for: request))
    }

    /// `response` as it goes to a client that takes `coding`: with `Vary: Accept-Encoding`
    /// when its type can be compressed, and compressed when `coding` is gzip, its size is
    /// within bounds and gzip makes it smaller. An answer that already has a
    /// `Content-Encoding` goes as it is.
    package func encode(_ response: HTTPResponse, as coding: ContentCoding) -> HTTPResponse {
        guard response.status.allowsContent, response.status != .partialContent, !response.body.isEmpty,
            !response.headerFields.contains(.contentEncoding),
            let contentType = response.headerFields[.contentType], Self.isCompressible(contentType: contentType)
        else { return response }
        var response = response
        if let vary = Self.varyWithAcceptEncoding(response.headerFields) { response.headerFields[.vary] = vary }
        guard coding == .gzip, (minimumBytes...maximumBytes).contains(response.body.count),
            let compressed = Gzip.compress(response.body, level: level), compressed.count < response.body.count
        else { return response }
        response.body = compressed
        response.headerFields[.contentEncoding] = coding.name
        if let value = response.headerFields[.etag], let tag = EntityTag(parsing: value) {
            response.headerFields[.etag] = tag.coded(coding).headerValue
        }
        return response
    }

    /// Adds `Accept-Encoding` to `Vary`, after what it already lists (every `Vary` field
    /// becomes one); nothing when it lists it, or `*`.
    package static func addVary(to fields: inout HTTPFields) {
        if let vary = varyWithAcceptEncoding(fields) { fields[.vary] = vary }
    }

    /// The `Vary` that `addVary` sets, or nil when it sets none: a response's fields are set
    /// only when they change, which keeps a prepared response prepared.
    private static func varyWithAcceptEncoding(_ fields: HTTPFields) -> String? {
        guard !fields.listContains(.vary, token: "*"), !fields.listContains(.vary, token: "accept-encoding") else { return nil }
        guard fields.contains(.vary) else { return "Accept-Encoding" }
        // One field, as nearly every answer has: one string made, not two arrays and a join.
        if let only = fields.onlyValue(for: .vary) { return only + ", Accept-Encoding" }
        return (fields.values(for: .vary) + ["Accept-Encoding"]).joined(separator: ", ")
    }
}
