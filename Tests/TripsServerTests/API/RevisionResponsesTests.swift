import Testing
import TripsDomain

@testable import TripsHTTP
@testable import TripsServer

/// What a view's or a trip page's answer is kept for: its revision only, within a count and
/// a byte budget; and which views are kept at all.
@Suite struct RevisionResponsesTests {
    /// A key whose own bytes count for nothing, so that a response's are its content's.
    private struct Key: RevisionResponseKey, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        let name: String
        init(stringLiteral name: String) { self.name = name }
        init(integerLiteral number: Int) { name = String(number) }
        var byteCount: Int { 0 }
    }

    private func response(_ bytes: Int) -> HTTPResponse {
        HTTPResponse(status: .ok, body: Array(repeating: UInt8(ascii: "x"), count: bytes))
    }

    @Test func responsesAreKeptForTheNewestRevisionOnly() {
        var kept = RevisionResponses<Key>(capacity: 10, byteCapacity: 100)
        kept.keep([("a", response(1))], at: 5)
        #expect(kept.response("a", at: 5)?.body.count == 1)
        #expect(kept.response("a", at: 4) == nil && kept.response("a", at: 6) == nil)
        kept.keep([("b", response(2))], at: 4)  // an older revision's: not kept
        #expect(kept.response("b", at: 4) == nil && kept.response("b", at: 5) == nil)
        kept.keep([("b", response(2))], at: 6)  // a newer one drops the older ones
        #expect(kept.response("a", at: 5) == nil && kept.response("a", at: 6) == nil)
        #expect(kept.response("b", at: 6)?.body.count == 2)
    }

    @Test func aRevisionKeepsWithinItsCountAndItsBytes() {
        var kept = RevisionResponses<Key>(capacity: 3, byteCapacity: 10)
        kept.keep([(1, response(4)), (2, response(4))], at: 1)
        kept.keep([(3, response(4))], at: 1)  // 12 bytes: over
        #expect(kept.response(3, at: 1) == nil)
        kept.keep([(1, response(1))], at: 1)  // the same key again: its bytes replace the old ones
        kept.keep([(3, response(5))], at: 1)
        #expect(kept.response(1, at: 1)?.body.count == 1 && kept.response(3, at: 1)?.body.count == 5)
        kept.keep([(4, response(0))], at: 1)  // a fourth: over the count
        #expect(kept.response(4, at: 1) == nil)
        kept.keep([(4, response(10))], at: 2)  // a new revision starts empty
        #expect(kept.response(4, at: 2)?.body.count == 10)
    }

    @Test func aViewIsMadeOncePerRevisionUnlessCompressed() throws {
        let cache = RepresentationCache()
        let key = RepresentationCache.ViewKey(path: "/trips", query: "limit=2", slot: 0, countsExactly: false)
        var made = 0
        func read(_ revision: UInt64, _ coding: ContentCoding = .identity, key: RepresentationCache.ViewKey = key) throws -> HTTPResponse {
            try cache.view(key, revision: revision, coding: coding) { () throws(APIError) in
                made += 1
                return HTTPResponse(status: .ok, body: Array("made \(made)".utf8))
            }
        }
        #expect(try read(1).body == Array("made 1".utf8))
        #expect(try read(1).body == Array("made 1".utf8))
        #expect(try read(1).isPrepared)
        #expect(made == 1)
        #expect(try read(1, .gzip).body == Array("made 2".utf8))  // left to the API's encoding, made each time
        #expect(try read(1, .gzip).body == Array("made 3".utf8))
        let other = RepresentationCache.ViewKey(path: "/trips", query: "limit=2", slot: 0, countsExactly: true)
        #expect(try read(1, key: other).body == Array("made 4".utf8))
        #expect(try read(2).body == Array("made 5".utf8))
        #expect(try read(1).body == Array("made 6".utf8))  // an older revision's answer is made, not kept
        #expect(try read(2).body == Array("made 5".utf8))
        // A refusal is not kept.
        #expect(throws: APIError.self) {
            try cache.view(key, revision: 3, coding: .identity) { () throws(APIError) in throw APIError(.badRequest, "no") }
        }
        #expect(try read(3).body == Array("made 7".utf8))
    }

    /// A view's key and head count against the budget with its content: a client that asks
    /// for views with long queries and small answers is bounded by them too.
    @Test func keysAndHeadsCountAgainstTheBudget() {
        let key = RepresentationCache.ViewKey(path: "/trips", query: String(repeating: "q", count: 90), slot: 0, countsExactly: false)
        #expect(key.byteCount == 96)
        var fields = HTTPFields()
        fields.append(.link, String(repeating: "l", count: 50))
        let response = HTTPResponse(status: .ok, headerFields: fields, body: [1, 2]).prepared()
        #expect(response.byteCount >= 2 + 54 + 50)
        var kept = RevisionResponses<RepresentationCache.ViewKey>(capacity: 10, byteCapacity: 96 + response.byteCount)
        kept.keep([(key, response)], at: 1)
        #expect(kept.response(key, at: 1) != nil)
        let other = RepresentationCache.ViewKey(path: "/trips", query: "q", slot: 0, countsExactly: false)
        kept.keep([(other, HTTPResponse(status: .ok))], at: 1)  // 7 bytes of key: no room left
        #expect(kept.response(other, at: 1) == nil)
    }
}
