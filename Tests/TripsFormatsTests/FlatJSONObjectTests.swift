import Testing

@testable import TripsFormats

struct FlatJSONObjectTests {
    /// An object of scalars gives its members in order, each as the parser reads it.
    @Test(arguments: [
        (
            #"{"city":"Lisbon","nights":4,"price":899.9,"isFavorite":false,"notes":null}"#,
            ["city", "nights", "price", "isFavorite", "notes"]
        ),
        (" \r\n\t{ \"b\" : \"é\\u00e9\\u0001\" , \"a\":-0.5e3,\"c\":true } \n", ["b", "a", "c"]),
        ("{}", []), (#"{"":""}"#, [""]),
    ])
    func anObjectOfScalarsGivesItsMembersAsTheParserReadsThem(text: String, names: [String]) throws {
        let members = try #require(JSONValue.flatObjectMembers(parsing: Array(text.utf8)))
        #expect(try JSONValue(parsing: Array(text.utf8)) == .object(Dictionary(uniqueKeysWithValues: members.map { ($0.name, $0.value) })))
        #expect(members.map(\.name) == names)
    }

    /// Anything else is left to the parser: nested values, a repeated name, more members than
    /// it looks through, and every document the parser refuses.
    @Test(arguments: [
        #"{"a":{"b":1}}"#, #"{"a":[1]}"#, #"{"a":1,"a":2}"#, "[]", "\"a\"", "1", "null", "",
        "{" + (0...16).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + "}",
        "{", #"{"a":1,}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":tru}"#, #"{"a" 1}"#, #"{a:1}"#, #"{"a":1} x"#, "{\"a\":\"\u{01}\"}",
        #"{"a":"\x"}"#,
    ])
    func anyOtherDocumentIsLeftToTheParser(text: String) {
        #expect(JSONValue.flatObjectMembers(parsing: Array(text.utf8)) == nil)
    }

    @Test func invalidUTF8IsLeftToTheParser() {
        #expect(JSONValue.flatObjectMembers(parsing: [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]) == nil)
    }
}
