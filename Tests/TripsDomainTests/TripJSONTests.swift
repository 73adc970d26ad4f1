import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsFormats

private func json(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: Array(text.utf8))
}

private func exportJSON(_ trip: Trip) -> String {
    String(decoding: Trip.transferRepresentations[0].export(trip), as: UTF8.self)
}

@Suite struct TripJSONTests {
    /// The digit-by-digit timestamp is `TripDate.rfc3339`, quoted, for every whole second it
    /// takes, and declines the rest; both spell what an independent civil-date computation
    /// (days to year, month and day by Howard Hinnant's algorithm, `String(format:)`) does,
    /// with milliseconds too.
    @Test func wholeSecondTimestampsAreTheRFC3339Text() {
        var random = SplitMix64(seed: 3339)
        var seconds: [Double] = [0, -1, 86_399, 86_400, 951_782_400, 1_803_859_200, -62_135_596_800, 253_402_300_799]
        for _ in 0..<2_000 { seconds.append(Double(Int.random(in: -62_135_596_800...253_402_300_799, using: &random))) }
        for second in seconds {
            let date = Date(timeIntervalSince1970: second)
            var writer = JSONWriter()
            let written = writer.appendWholeSecondTimestamp(date)
            #expect(written)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(TripDate.rfc3339(date))\"", "\(second)")
            #expect(TripDate.rfc3339(date) == Self.spelled(milliseconds: Int(second) * 1000), "\(second)")
            let withMilliseconds = Int(second) * 1000 + Int.random(in: 1...999, using: &random)
            #expect(
                TripDate.rfc3339(Date(timeIntervalSince1970: Double(withMilliseconds) / 1000))
                    == Self.spelled(milliseconds: withMilliseconds), "\(withMilliseconds) ms")
        }
        for second in [0.5, -62_135_596_801, 253_402_300_800, .infinity, .nan] {
            var writer = JSONWriter()
            let written = writer.appendWholeSecondTimestamp(Date(timeIntervalSince1970: second))
            #expect(!written)
            #expect(writer.bytes.isEmpty)
        }
    }

    /// RFC 3339 for milliseconds since 1970, computed independently of `CivilDate`.
    private static func spelled(milliseconds: Int) -> String {
        let msOfDay = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
        let z = (milliseconds - msOfDay) / 86_400_000 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let time = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, msOfDay / 3_600_000, msOfDay / 60_000 % 60, msOfDay / 1000 % 60)
        return time + (msOfDay % 1000 == 0 ? "" : String(format: ".%03d", msOfDay % 1000)) + "Z"
    }

    @Test func stringsAreEscapedWhereTheyNeedIt() {
        var writer = JSONWriter()
        writer.appendString("plain Zürich")
        writer.appendString("a \"quote\", a \\ and a\nline\u{01}")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""plain Zürich""a \"quote\", a \\ and a\nline\u0001""#)
    }

    @Test func aTripIsWrittenWithExactlyItsTenFields() throws {
        let text = exportJSON(TripList.samples[2]!)
        #expect(
            text
                == #"{"id":2,"city":"Vancouver","country":"Canada","nights":3,"isFavorite":false,"imageName":"vancouver","price":1299.99,"start":"2027-03-05T00:00:00Z","notes":"Stanley Park by bike.","photo":null}"#
        )
        guard case .object(let members) = try json(text) else {
            Issue.record("not an object")
            return
        }
        #expect(Set(members.keys) == Set(Trip.Field.allCases.map(\.rawValue)))
    }

    @Test(arguments: ["1299.99", "0.1", "0", "12345678901234567890.123456789", "0.000001"])
    func pricesRoundTripExactly(price: String) throws {
        let draft = try TripDraft(json: json(#"{"city":"A","country":"B","nights":1,"price":\#(price),"start":"2027-01-01"}"#))
        var list = TripList()
        let trip = try list.add(draft)
        #expect(exportJSON(trip).contains(#""price":\#(price),"#))
    }

    @Test(arguments: [
        ("123456789012345678901234567890123456789", "has more than 38 significant digits"),
        ("1.23456789012345678901234567890123456789", "has more than 38 significant digits"),
        ("1e200", "is out of range"),
        ("1e-200", "is out of range"),
        ("10e9223372036854775807", "is out of range"), ("1e-9223372036854775808", "is out of range"),
        ("1e99999999999999999999", "is out of range"),
    ])
    func pricesThatCannotBeKeptExactlyAreRefused(price: String, reason: String) throws {
        let error = #expect(throws: TripsError.self) {
            try TripDraft(json: json(#"{"city":"A","country":"B","nights":1,"price":\#(price),"start":"2027-01-01"}"#))
        }
        #expect(error?.description.hasPrefix("price: \(price) \(reason)") == true)
    }

    /// A number is kept or refused by its value, not by how it is written.
    @Test(arguments: [
        // (the same number written two ways, kept?)
        ("1e128", "10e127", true), ("1e-128", "10e-129", true), ("0.1e-127", "1e-128", true),
        ("12345678901234567890123456789012345678e127", "1.2345678901234567890123456789012345678e164", true),
        ("1e165", "10e164", false), ("1e-129", "0.1e-128", false), ("-0.0", "0e99999999999999999999", true),
    ])
    func aPriceIsKeptOrRefusedByItsValue(one: String, other: String, kept: Bool) throws {
        func price(_ literal: String) -> Decimal? {
            try? TripDraft(json: json(#"{"city":"A","country":"B","nights":1,"price":\#(literal),"start":"2027-01-01"}"#)).price
        }
        #expect((price(one) != nil) == kept)
        #expect(price(one) == price(other))
    }

    @Test func thirtyEightDigitsAndTrailingZerosAreKept() throws {
        for price in [
            "12345678901234567890123456789012345678", "1000000000000000000000000000000000000000000",
            "0.00000000000000000000000000000000000000000001",
        ] {
            let draft = try TripDraft(json: json(#"{"city":"A","country":"B","nights":1,"price":\#(price),"start":"2027-01-01"}"#))
            #expect(draft.price == Decimal(string: price, locale: nil))
        }
    }

    @Test(arguments: [
        ("2027-03-05T00:00:00Z", "2027-03-05T00:00:00Z"),
        ("2027-03-05", "2027-03-05T00:00:00Z"),
        ("2027-03-05T10:30:00.250Z", "2027-03-05T10:30:00.250Z"),
        ("2027-03-05T10:30:00+02:00", "2027-03-05T08:30:00Z"),
        ("2027-03-05T01:00:00-05:30", "2027-03-05T06:30:00Z"),
        ("2028-02-29t23:59:59z", "2028-02-29T23:59:59Z"),
        ("2027-03-05T10:30:00.0004Z", "2027-03-05T10:30:00Z"),  // milliseconds are kept, finer is rounded
        ("2027-03-05T10:30:00.0005Z", "2027-03-05T10:30:00.001Z"),
        ("2027-03-05T10:30:59.9996Z", "2027-03-05T10:31:00Z"),
    ])
    func startsAreReadInRFC3339FormsAndWrittenInUTC(input: String, written: String) throws {
        let date = try #require(TripDate.parse(input))
        #expect(TripDate.rfc3339(date) == written)
    }

    @Test(arguments: [
        "9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+01:00", "2027-02-29", "2027-13-01", "2027-3-5", "March 5, 2027",
        "2027-03-05T25:00:00Z", "2027-03-05T10:00:00", "2027-03-05T10:00:00.Z", "",
    ])
    func malformedStartsAreRefused(input: String) {
        #expect(TripDate.parse(input) == nil)
    }

    @Test func aDraftMayLeaveOutTheOptionalFields() throws {
        let draft = try TripDraft(json: json(#"{"city":"Lisbon","country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01"}"#))
        #expect(draft == lisbonDraft())
    }

    @Test(arguments: [
        (#"{"country":"P","nights":4,"price":1,"start":"2027-05-01"}"#, "city: is required"),
        (#"{"city":"  ","country":"P","nights":4,"price":1,"start":"2027-05-01"}"#, "city: must not be blank"),
        (
            #"{"city":"\#(String(repeating: "x", count: 201))","country":"P","nights":4,"price":1,"start":"2027-05-01"}"#,
            "city: must be at most 200 characters"
        ),
        (#"{"city":"L","country":"","nights":4,"price":1,"start":"2027-05-01"}"#, "country: must not be blank"),
        (#"{"city":"L","country":"P","nights":366,"price":1,"start":"2027-05-01"}"#, "nights: must be between 1 and 365"),
        (#"{"city":"L","country":"P","nights":2.5,"price":1,"start":"2027-05-01"}"#, "nights: must be a whole number, not 2.5"),
        (#"{"city":"L","country":"P","nights":"2","price":1,"start":"2027-05-01"}"#, "nights: must be a whole number, not a string"),
        (#"{"city":"L","country":"P","nights":2,"price":-0.01,"start":"2027-05-01"}"#, "price: must be zero or more"),
        (
            #"{"city":"L","country":"P","nights":2,"price":1,"start":"soon"}"#,
            #"start: must be an RFC 3339 timestamp like 2027-03-05T00:00:00Z or a date like 2027-03-05, not "soon""#
        ),
        (
            #"{"city":"L","country":"P","nights":2,"price":1,"start":"2027-05-01","notes":"\#(String(repeating: "n", count: 10_001))"}"#,
            "notes: must be at most 10000 characters"
        ),
        (
            #"{"city":"L","country":"P","nights":2,"price":1,"start":"2027-05-01","isFavourite":true}"#,
            "isFavourite: is not a member this request accepts"
        ),
        (#"{"id":3,"city":"L","country":"P","nights":2,"price":1,"start":"2027-05-01"}"#, "id: is issued by the server; leave it out"),
        (#"[]"#, "a trip must be a JSON object, not an array"),
    ])
    func invalidDraftsNameTheField(body: String, message: String) throws {
        let error = #expect(throws: TripsError.self) { try TripDraft(json: json(body)) }
        #expect(error?.description == message)
    }

    @Test func notesOfExactlyTheLimitAreAccepted() throws {
        let body =
            #"{"city":"L","country":"P","nights":365,"price":0,"start":"2027-05-01","notes":"\#(String(repeating: "n", count: 10_000))"}"#
        #expect(try TripDraft(json: json(body)).notes.count == 10_000)
    }

    @Test func codableUsesTheSameKeysAndFormats() throws {
        let trip = TripList.samples[2]!
        let data = try JSONEncoder().encode(trip)
        let decoded = try JSONDecoder().decode(Trip.self, from: data)
        #expect(decoded == trip)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == Set(Trip.Field.allCases.map(\.rawValue)))
        #expect(object["start"] as? String == "2027-03-05T00:00:00Z")
    }
}

@Suite struct JSONParserTests {
    @Test func documentsParseIntoValues() throws {
        let value = try json(#" {"a": [1, -2.5e3, true, false, null, "x\"\u00e9\ud83d\ude00"], "b": {}} "#)
        #expect(
            value
                == .object([
                    "a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null, .string("x\"é😀")]),
                    "b": .object([:]),
                ]))
    }

    @Test(arguments: [
        "", "{", "[1,]", #"{"a":1,}"#, "01", "1.", "-", ".5", "+1", "1e", #"{"a" 1}"#, "nul", "tru",
        #""\x""#, "\"a\u{01}\"", #""\ud83d""#, #"{"a":1,"a":2}"#, "[1] [2]", "'a'", "NaN",
    ])
    func malformedDocumentsAreRefused(text: String) {
        #expect(throws: JSONSyntaxError.self) { try json(text) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: [0x22, 0xFF, 0x22]) }
    }

    /// Strings without an escape are taken whole, the others byte by byte: both read alike,
    /// and both refuse what JSON does not allow.
    @Test func stringsAreReadAlikeWithAndWithoutEscapes() throws {
        #expect(
            try json(#"["Zürich", "a\"b", "long run then \u00e9", ""]"#)
                == .array([.string("Zürich"), .string("a\"b"), .string("long run then é"), .string("")]))
        for bytes: [UInt8] in [
            Array(#"["a"#.utf8) + [0xFF] + Array(#""]"#.utf8),  // invalid UTF-8, no escape
            Array(#"["\n"#.utf8) + [0xC3] + Array(#""]"#.utf8),  // invalid UTF-8 after an escape
            Array(#"["a"#.utf8) + [0x0A] + Array(#"b"]"#.utf8),  // a raw line break
            Array(#"["abc"#.utf8),  // unterminated
        ] {
            #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: bytes) }
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try json(deep) }
        #expect(throws: Never.self) { try json(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) }
    }

    @Test func stringsAreWrittenWithEscapes() throws {
        var writer = JSONWriter()
        writer.appendString("a\"b\\c\nd\u{01}é")
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == #""a\"b\\c\nd\u0001é""#)
        #expect(try json(text) == .string("a\"b\\c\nd\u{01}é"))
    }
}

@Suite struct WholeNumberTests {
    @Test(arguments: [("3", 3), ("3.0", 3), ("3e0", 3), ("0.3e1", 3), ("300e-2", 3)])
    func wholeNumbersMayBeWrittenWithAFractionOfZeros(literal: String, expected: Int) throws {
        let draft = try TripDraft(
            json: JSONValue(parsing: Array(#"{"city":"A","country":"B","nights":\#(literal),"price":1,"start":"2027-01-01"}"#.utf8)))
        #expect(draft.nights == expected)
    }

    @Test(arguments: ["2.5", "1e40", "-1e40", "3.01"])
    func otherNumbersAreNotWhole(literal: String) {
        #expect(throws: TripsError.invalidField(.nights, "must be a whole number, not \(literal)")) {
            try TripDraft(
                json: JSONValue(parsing: Array(#"{"city":"A","country":"B","nights":\#(literal),"price":1,"start":"2027-01-01"}"#.utf8)))
        }
    }
}
