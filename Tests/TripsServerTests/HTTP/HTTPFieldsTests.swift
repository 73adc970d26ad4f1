import Testing

@testable import TripsHTTP

/// `HTTPFields` finds a field whatever its name's spelling, whether the name is indexed (a
/// bit says it is there) or not (the array is searched), and keeps those bits true through
/// every change.
@Suite struct HTTPFieldsTests {
    /// A name as the parser makes it from the bytes a client sent.
    private func parsed(_ name: String) -> HTTPField.Name {
        Array(name.utf8).withUnsafeBytes { HTTPField.Name(validatedBytes: $0) }
    }

    @Test(arguments: ["Host", "host", "HOST", "hOsT", "If-None-Match", "if-none-match", "X-Request-Id", "X-Custom", "x-custom"])
    func aNameIsTheSameNameInEverySpelling(spelling: String) throws {
        let name = parsed(spelling)
        let literal = try #require(HTTPField.Name(spelling.uppercased()))
        #expect(name == literal)
        #expect(name.hashValue == literal.hashValue)
        #expect(name.rawName == spelling)
        var fields = HTTPFields()
        fields.append(name, "value")
        #expect(fields.contains(literal))
        #expect(fields[literal] == "value")
        #expect(fields.values(for: literal) == ["value"])
    }

    /// Emptied for the parser's next request, keeping its room or not: nothing is left found.
    @Test(arguments: [true, false])
    func removingAllFieldsLeavesNoneFound(keepingCapacity: Bool) {
        var fields: HTTPFields = [.host: "a", .accept: "b", "X-Custom": "c"]
        let capacity = fields.fields.capacity
        fields.removeAll(keepingCapacity: keepingCapacity)
        #expect(fields.isEmpty && fields == HTTPFields())
        #expect(!fields.contains(.host) && !fields.contains(.accept) && !fields.contains("X-Custom"))
        #expect(fields[.host] == nil)
        if keepingCapacity { #expect(fields.fields.capacity == capacity) }
        fields.append(.accept, "d")
        #expect(fields.values(for: .accept) == ["d"] && fields.count == 1)
    }

    @Test func indexedNamesHaveTheirOwnPlaceAndOthersNone() throws {
        #expect(HTTPField.Name.host.index != 0)
        #expect(HTTPField.Name.host.index != HTTPField.Name.accept.index)
        #expect(HTTPField.Name.host != .accept)
        let custom = "X-Custom"
        #expect(try #require(HTTPField.Name(custom)).index == 0)
        let canonical = HTTPField.Name.Indexed.allCases.map { HTTPField.Name($0).canonicalName }
        #expect(canonical.count < 64)
        #expect(Set(canonical).count == canonical.count)
        #expect(HTTPField.Name.Indexed.allCases.allSatisfy { HTTPField.Name($0.spelling) == HTTPField.Name($0) })
    }

    /// An indexed name in another spelling is the same name, written as it was given.
    @Test func indexedNamesInAnySpellingAreEqualAndKeepTheirSpelling() {
        let lower: HTTPField.Name = "content-type"
        #expect(lower == .contentType)
        #expect(lower.hashValue == HTTPField.Name.contentType.hashValue)
        #expect(lower.rawName == "content-type")
        #expect(HTTPField.Name.contentType.rawName == "Content-Type")
        #expect(HTTPField.Name.contentType.canonicalName == "content-type")
        let parsed = "CONTENT-TYPE".utf8.withContiguousStorageIfAvailable { HTTPField.Name(validatedBytes: UnsafeRawBufferPointer($0)) }
        #expect(parsed == .contentType)
        #expect(parsed?.rawName == "CONTENT-TYPE")
        #expect(HTTPFields([HTTPField(name: lower, value: "text/plain")])[.contentType] == "text/plain")
    }

    @Test func absentFieldsAreNotFoundAndRemovedOnesAreGone() {
        var fields: HTTPFields = [.host: "example.com", .accept: "text/plain"]
        #expect(!fields.contains(.ifNoneMatch))
        #expect(fields[.ifNoneMatch] == nil)
        #expect(fields.values(for: .tripsRevision).isEmpty)
        #expect(!fields.listContains(.connection, token: "close"))

        fields.append(.accept, "application/json")
        fields[.accept] = nil
        #expect(!fields.contains(.accept))
        #expect(fields.values(for: .accept).isEmpty)
        #expect(fields.count == 1)

        fields[.connection] = "keep-alive, Close"
        #expect(fields.listContains(.connection, token: "close"))
        // An element is the whole token, found anywhere in the list, quoted commas not splitting.
        fields[.connection] = " \"a,close\" ,\tCLOSE\t"
        #expect(fields.listContains(.connection, token: "close"))
        fields[.connection] = #""a,close", closed, clos"#
        #expect(!fields.listContains(.connection, token: "close"))
        fields[.connection] = "keep-alive"
        #expect(fields.values(for: .connection) == ["keep-alive"])
        #expect(!fields.listContains(.connection, token: "close"))
    }

    @Test func fieldsThatHoldTheSameAreEqualHoweverTheyWereMade() throws {
        var built = HTTPFields()
        built.append(.etag, "\"a\"")
        built[.vary] = "Accept"
        built[.vary] = nil
        built.append(.host, "example.com")
        let custom = try #require(HTTPField.Name(String("X-Custom")))
        built.append(custom, "1")
        built[custom] = nil
        let literal: HTTPFields = [.etag: "\"a\"", .host: "example.com"]
        #expect(built == literal)
        #expect(built.hashValue == literal.hashValue)
    }
}
