import Testing
import TripsFormats

@testable import TripsHTTP
@testable import TripsPlatform

/// `Accept-Encoding` (RFC 9110 §12.5.3), tags per coding, and what `ResponseCompression`
/// compresses: pure values, no socket (the API's tests go over one).
@Suite struct ContentCodingTests {
    @Test(arguments: [
        ("gzip", ContentCoding.gzip), ("x-gzip", .gzip), ("GZip", .gzip), ("gzip, deflate, br", .gzip), ("*", .gzip),
        ("gzip;q=0", .identity), ("gzip; q=0.000", .identity), ("identity", .identity), ("", .identity), ("br, deflate", .identity),
        ("*;q=0", .identity), ("gzip;q=0.5, identity", .identity), ("gzip;q=0.5, identity;q=0.5", .gzip),
        ("identity;q=0, *;q=0.1", .gzip), ("gzip;q=0.8, *;q=0", .gzip), ("gzip;q=2", .identity), ("gzip;level=1", .identity),
        ("x-gzip;q=0, *", .identity), ("identity;q=0", .identity),
    ])
    func acceptEncodingChoosesGzipWhenTheClientLikesItAtLeastAsMuchAsIdentity(field: String, expected: ContentCoding) {
        #expect(AcceptEncoding([field]).preferred == expected)
    }

    @Test func identityIsAcceptableUnlessRefusedByNameOrByStar() {
        #expect(AcceptEncoding(["gzip"]).quality(of: .identity) == 1000)
        #expect(AcceptEncoding(["*;q=0"]).quality(of: .identity) == 0)
        #expect(AcceptEncoding(["identity;q=0.2, *;q=0"]).quality(of: .identity) == 200)
        #expect(AcceptEncoding(["br"]).quality(of: .gzip) == 0)
    }

    @Test func aCodedTagNamesTheSameRepresentationInPreconditions() throws {
        let identity = EntityTag("list-r5-json")
        let gzip = identity.coded(.gzip)
        #expect(gzip.headerValue == #""list-r5-json-gzip""#)
        #expect(gzip.isCoded && !identity.isCoded && gzip.uncoded == identity && identity.coded(.identity) == identity)
        let ifMatch = try #require(EntityTagCondition.parse([gzip.headerValue]))
        #expect(ifMatch.matchesStrongly([identity]))
        #expect(!(try #require(EntityTagCondition.parse(["W/" + gzip.headerValue]))).matchesStrongly([identity]))
        #expect(!(try #require(EntityTagCondition.parse([#""list-r4-json-gzip""#]))).matchesStrongly([identity]))
        // If-None-Match: weak comparison, and the form the client sent comes back.
        let ifNoneMatch = try #require(EntityTagCondition.parse(["W/" + gzip.headerValue]))
        #expect(ifNoneMatch.weakMatch(identity)?.isCoded == true)
        #expect(EntityTagCondition.parse([identity.headerValue])?.weakMatch(identity) == identity)
        #expect(EntityTagCondition.parse([#""other-gzip""#])?.weakMatch(identity) == nil)
    }

    @Test(arguments: [0, 1, 1023, 1024, 200_000])
    func gzipDecodesToTheBytesGiven(count: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let text = (0..<count).map { index in index % 7 == 0 ? UInt8.random(in: 32...126, using: &generator) : UInt8(ascii: "a") }
        for level in [Int32(-5), 1, 3, 9, 42] {
            let packed = try #require(Gzip.compress(text, level: level))
            #expect(packed.starts(with: [0x1f, 0x8b]))
            #expect(gunzip(packed) == text)
        }
    }

    private static func response(_ type: String, bytes: Int, status: HTTPStatus = .ok, fields: HTTPFields = [:]) -> HTTPResponse {
        var fields = fields
        fields[.contentType] = type
        fields[.etag] = #""t-1""#
        let body = Array(String(repeating: #"{"city":"Vancouver"},"#, count: bytes / 20 + 1).utf8.prefix(bytes))
        return HTTPResponse(status: status, headerFields: fields, body: body)
    }

    @Test(arguments: [
        "application/json", "application/problem+json", "text/plain; charset=utf-8", "text/html; charset=utf-8",
        "text/css; charset=utf-8", "text/javascript; charset=utf-8", "application/yaml", "Application/JSON",
        "TEXT/Plain;charset=utf-8", " application/merge-patch+JSON",
    ])
    func textJSONAndYAMLOf1KiBOrMoreAreCompressedWithTheirOwnTag(type: String) throws {
        let plain = Self.response(type, bytes: 4096, fields: [.vary: "Accept"])
        let sent = ResponseCompression().encode(plain, as: .gzip)
        #expect(sent.headerFields[.contentEncoding] == "gzip")
        #expect(sent.headerFields[.etag] == #""t-1-gzip""#)
        #expect(sent.headerFields[.vary] == "Accept, Accept-Encoding")
        #expect(gunzip(sent.body) == plain.body)
        let identity = ResponseCompression().encode(plain, as: .identity)
        #expect(identity.body == plain.body && identity.headerFields[.contentEncoding] == nil)
        #expect(identity.headerFields[.vary] == "Accept, Accept-Encoding" && identity.headerFields[.etag] == #""t-1""#)
    }

    @Test(arguments: [
        "text/event-stream", "Text/Event-Stream; charset=utf-8", "image/jpeg", "image/svg+xml", "application/octet-stream",
        "json", "application/x+jsonp", "application/",
    ])
    func theChangeFeedAndImagesAreNeverCompressedNorVary(type: String) {
        let plain = Self.response(type, bytes: 4096)
        #expect(ResponseCompression().encode(plain, as: .gzip) == plain)
    }

    @Test func smallContentPartsAndCodedAnswersGoAsTheyAreButSayVary() {
        let compression = ResponseCompression()
        let small = Self.response("application/json", bytes: 1023)
        #expect(compression.encode(small, as: .gzip).body == small.body)
        #expect(compression.encode(small, as: .gzip).headerFields[.vary] == "Accept-Encoding")
        let part = Self.response("application/json", bytes: 4096, status: .partialContent)
        #expect(compression.encode(part, as: .gzip) == part)
        let coded = Self.response("application/json", bytes: 4096, fields: [.contentEncoding: "br"])
        #expect(compression.encode(coded, as: .gzip) == coded)
        let empty = HTTPResponse(status: .noContent, headerFields: [.contentType: "application/json"])
        #expect(compression.encode(empty, as: .gzip) == empty)
    }

    @Test func varyIsMergedIntoWhatIsAlreadyListedOnce() {
        var fields: HTTPFields = [:]
        fields.append(.vary, "Accept")
        fields.append(.vary, "Origin")
        ResponseCompression.addVary(to: &fields)
        #expect(fields.values(for: .vary) == ["Accept, Origin, Accept-Encoding"])
        ResponseCompression.addVary(to: &fields)
        #expect(fields.values(for: .vary) == ["Accept, Origin, Accept-Encoding"])
        var any: HTTPFields = [.vary: "*"]
        ResponseCompression.addVary(to: &any)
        #expect(any[.vary] == "*")
        var one: HTTPFields = [.vary: "Accept"]
        ResponseCompression.addVary(to: &one)
        #expect(one.values(for: .vary) == ["Accept, Accept-Encoding"])
        var none: HTTPFields = [:]
        ResponseCompression.addVary(to: &none)
        #expect(none.values(for: .vary) == ["Accept-Encoding"])
        var listed: HTTPFields = [.vary: "Accept,ACCEPT-encoding"]
        ResponseCompression.addVary(to: &listed)
        #expect(listed.values(for: .vary) == ["Accept,ACCEPT-encoding"])
    }

    @Test func contentGzipCannotShrinkGoesAsItIs() {
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let plain = HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"], body: noise)
        let sent = ResponseCompression().encode(plain, as: .gzip)
        #expect(sent.body == noise && sent.headerFields[.contentEncoding] == nil && sent.headerFields[.vary] == "Accept-Encoding")
    }

    @Test func contentOverTheMaximumGoesAsItIs() {
        var compression = ResponseCompression()
        compression.maximumBytes = 2048
        let large = Self.response("application/json", bytes: 2049)
        #expect(compression.encode(large, as: .gzip).body == large.body)
        #expect(compression.encode(Self.response("application/json", bytes: 2048), as: .gzip).headerFields[.contentEncoding] == "gzip")
    }
}
