import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer

@Suite struct ContentNegotiationTests {
    private let declared: [MediaType] = [.json, .plainText]

    @Test(arguments: [
        // (Accept values, chosen index: 0 JSON, 1 text, nil 406)
        ([], 0 as Int?),
        (["*/*"], 0),
        (["application/json"], 0),
        (["text/plain"], 1),
        (["TEXT/Plain"], 1),
        (["text/plain, application/json"], 0),  // a tie goes to the declared order
        (["text/plain", "application/json"], 0),  // several fields are one list
        (["text/plain, application/json;q=0.9"], 1),
        (["application/json;q=0, */*"], 1),  // q=0 means "not this"
        (["text/*;q=0.4, application/*;q=0.3"], 1),
        (["text/plain;q=0.2, */*;q=0.5"], 0),  // the most specific range decides text's quality
        (["*/*;q=0.5, text/plain;q=0.2"], 0),
        (["text/plain;charset=utf-8"], 1),
        (["text/plain;charset=iso-8859-1, application/json;q=0.1"], 0),  // we only write UTF-8
        (["text/plain;charset=utf-8;q=0.9, text/plain;q=0.1, application/json;q=0.5"], 1),
        (["application/json;q=0.001"], 0),
        (["image/png"], nil),
        (["application/json;q=0, text/plain;q=0"], nil),
        (["text/*;q=0, application/xml"], nil),
        (["text/plain;q=2"], 0),  // malformed: treated as absent
        (["text/plain;q=0.1234"], 0),
        (["*/plain"], 0),
        (["text/plain;q=0.5;level=1, application/json;q=0.4"], 1),  // after q come extensions, not parameters
        (["text/plain; q=0.5, application/json; q=0.4"], 1),
        ([#"text/plain;foo="a,b";q=0.9, application/json;q=0.1"#], 0),  // foo is no parameter we make: only JSON matches
    ])
    func acceptPicksARepresentation(accept: [String], expected: Int?) {
        #expect(ContentNegotiation.choose(declared, accept: accept) == expected)
    }

    /// Only the malformed elements are ignored; the valid ones still count.
    @Test(arguments: [
        (["text/plain;q=0.0001, application/json;q=0"], nil as Int?),
        (["text/plain;q=2, text/plain"], 1),
        (["*/plain, application/json;q=0.5, text/plain;q=0.4"], 0),
        (["nonsense", "text/plain"], 1),
        (["text/plain;q=2, */plain"], 0),  // nothing valid: as if absent
    ])
    func aMalformedElementIsSkippedAndTheRestCount(accept: [String], expected: Int?) {
        #expect(ContentNegotiation.choose(declared, accept: accept) == expected)
    }

    /// A problem document is JSON (`application/problem+json`): it matches what matches JSON.
    @Test(arguments: [
        (["application/json, text/plain;q=0.5"], 0 as Int?),
        (["application/*, text/plain;q=0.5"], 0),
        (["application/problem+json, text/plain;q=0.5"], 0),
        (["text/plain, application/json"], 0),  // a tie: JSON first
        (["text/plain, application/json;q=0.9"], 1),
        (["application/json;q=0.1, application/problem+json;q=0.9, text/plain;q=0.5"], 0),  // the exact type decides
        (["application/problem+json;q=0.1, application/json, text/plain;q=0.5"], 1),
        (["image/png"], nil),
    ])
    func aProblemDocumentCountsAsJSON(accept: [String], expected: Int?) {
        #expect(ContentNegotiation.choose([.problemJSON, .plainText], accept: accept) == expected)
    }

    @Test(arguments: [("1", 1000), ("1.000", 1000), ("0", 0), ("0.5", 500), ("0.125", 125), ("0.", 0)])
    func qualityValuesAreThousandths(text: String, expected: Int) {
        #expect(AcceptField.parseQuality(text) == expected)
    }

    @Test(arguments: ["1.001", "1.5", "0.1234", "2", "-1", ".5", "0,5", ""])
    func malformedQualityValuesAreRefused(text: String) {
        #expect(AcceptField.parseQuality(text) == nil)
    }
}

/// One bare type is answered without parsing the field: the same choice the full rules make.
@Suite struct BareAcceptTests {
    static let offered: [MediaType] = [.json, .plainText, .html]

    @Test(arguments: [
        ("text/plain", 1 as Int?), (" TEXT/Plain ", 1), ("text/html", 2), ("*/*", 0), ("application/json", 0), ("image/png", nil),
        ("text/plain;q=0", nil), ("text/*", 1), ("text/plain, text/html", 1), ("", 0), ("TEXT/HTML", 2), ("text", 0),
    ])
    func aBareTypeChoosesItself(accept: String, expected: Int?) {
        #expect(ContentNegotiation.choose(Self.offered, accept: [accept]) == expected)
    }

    /// A request's fields choose as their values do, one `Accept` field (read without an
    /// array of its values) or several, whatever other fields are among them.
    @Test(arguments: [
        [], ["text/plain"], [" text/html"], ["text/plain", "text/html"], ["image/png"], ["*/*"], ["text/*;q=0.5", "*/*;q=0.1"],
    ])
    func aRequestsFieldsChooseAsTheirValuesDo(accept: [String]) {
        var fields: HTTPFields = [.host: "localhost"]
        for value in accept {
            fields.append(.accept, value)
            fields.append(.vary, "x")
        }
        #expect(fields.onlyValue(for: .accept) == (accept.count == 1 ? accept[0] : nil))
        #expect(ContentNegotiation.choose(Self.offered, accept: fields) == ContentNegotiation.choose(Self.offered, accept: accept))
    }

    @Test func aProblemDocumentStillCountsAsJSON() {
        #expect(ContentNegotiation.choose([.problemJSON, .plainText], accept: ["application/json"]) == 0)
    }

    /// FuzzAccept: a `+json` type declared before JSON ties with it for a bare
    /// `application/json` (the suffix rule), so the declared order gives it the answer.
    @Test func aSuffixTypeDeclaredFirstWinsTheTie() {
        let offered: [MediaType] = [.html, .mergePatchJSON, .problemJSON, .plainText, .json]
        #expect(ContentNegotiation.choose(offered, accept: ["applicatIon/json"]) == 1)
        #expect(ContentNegotiation.choose(offered, accept: ["application/json, text/html;q=0"]) == 1)
        // A suffix with nothing before it is one too, however short (the review's case).
        let bareSuffix: [MediaType] = [MediaType(type: "application", subtype: "+json"), .json]
        #expect(ContentNegotiation.choose(bareSuffix, accept: ["application/json"]) == 0)
        #expect(ContentNegotiation.choose(bareSuffix, accept: ["application/json, text/html;q=0"]) == 0)
    }
}

@Suite struct EntityTagConditionTests {
    /// The API's tags, spelled as clients and caches have them: a language other than English
    /// last, numbers as written, the header value quoted (weak ones behind `W/`).
    @Test func theAPIsTagsAreSpelledAsBefore() {
        #expect(EntityTag.trip(2, version: 3, .json).headerValue == #""trip-2-v3-json""#)
        #expect(EntityTag.trip(12, version: 9_007_199_254_740_991, .plainText, .french).opaque == "trip-12-v9007199254740991-plain-fr")
        #expect(EntityTag.trip(1, version: .max, .html, .english).opaque == "trip-1-v18446744073709551615-html")
        #expect(EntityTag.tripPage(7, revision: 40, .brazilianPortuguese).opaque == "trip-7-r40-html-pt-BR")
        #expect(EntityTag.list(revision: 0, .json, .japanese).opaque == "list-r0-json-ja")
        #expect(EntityTag("a-b", isWeak: true).headerValue == #"W/"a-b""#)
        #expect(EntityTag("").headerValue == #""""#)
    }

    @Test func ifMatchComparesStrongly() throws {
        let current = [EntityTag("a"), EntityTag("b")]
        #expect(EntityTagCondition.parse([#""b""#])?.matchesStrongly(current) == true)
        #expect(EntityTagCondition.parse([#""x", "a""#])?.matchesStrongly(current) == true)
        #expect(EntityTagCondition.parse([#"W/"a""#])?.matchesStrongly(current) == false)
        #expect(EntityTagCondition.parse(["*"])?.matchesStrongly(current) == true)
        #expect(EntityTagCondition.parse(["*"])?.matchesStrongly([]) == false)
        #expect(EntityTagCondition.parse([]) == nil)
    }

    @Test func ifNoneMatchComparesWeakly() throws {
        #expect(EntityTagCondition.parse([#"W/"a""#])?.matchesWeakly(EntityTag("a")) == true)
        #expect(EntityTagCondition.parse(["*"])?.matchesWeakly(EntityTag("a")) == true)
        #expect(EntityTagCondition.parse([#""b""#])?.matchesWeakly(EntityTag("a")) == false)
    }

    @Test(arguments: ["a", #""a"#, #"W/a"#, #""a"b""#, "0", ""])
    func somethingThatIsNoEntityTagNeverMatches(value: String) {
        let condition = EntityTagCondition.parse([value])
        #expect(condition == .tags([]))
        #expect(condition?.matchesStrongly([EntityTag("a")]) == false)
        #expect(condition?.matchesWeakly(EntityTag("a")) == false)
    }
}
