import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer

/// Inputs the fuzz targets (`Fuzz/`, `scripts/checks/fuzz.sh`) stopped on, kept byte for byte.
@Suite struct FuzzFindingsTests {
    /// FuzzRequestParser: fed whole, the line fails on its bare LF; split after four bytes,
    /// the partial line already holds a byte no method can (`/`) and fails early. Both are
    /// 400 and neither yields a request: the fuzz target compares "fails", not which error.
    @Test func aBadRequestLineFailsHoweverItIsSplitThoughTheErrorMayDiffer() {
        let stream: [UInt8] = [0x2F, 0x01, 0x00, 0x0D, 0x49, 0x6E, 0x74, 0x48, 0x0D, 0x49, 0x6E, 0x74, 0x0A]
        #expect(parseEvents([stream]) == [.failure(.invalidLineEnding)])
        #expect(parseEvents([Array(stream[..<4]), Array(stream[4...])]) == [.failure(.invalidMethod)])
        #expect(HTTPParseError.invalidLineEnding.status == HTTPParseError.invalidMethod.status)
    }

    /// FuzzJSONBodies (found in a CI run): a start with a sub-millisecond fraction was kept
    /// whole but written back to the millisecond, so the trip's own JSON read back as a
    /// different trip. Fractions are now rounded to the millisecond when read.
    @Test func aSubMillisecondStartReadsBackFromTheTripsOwnJSON() throws {
        let body =
            #"{"city":"Lsbon","country":"Portugal","nights":4,"price":0,"start":"2027-04-01T00:00:00.0005Z","isFavorite":true,"imageName":"lisbon","notes":"tram 28"}"#
        let draft = try TripDraft(json: JSONValue(parsing: Array(body.utf8)))
        var list = TripList()
        let trip = try list.add(draft)
        let written = Trip.transferRepresentations[0].export(trip)
        guard case .object(var members) = try JSONValue(parsing: written) else { throw TestFailure("not an object") }
        members["id"] = nil
        #expect(try TripDraft(json: .object(members)) == draft)
    }

    /// FuzzTextImport: the line ends in a space and a combining mark, one Character that
    /// counts as whitespace. Lines are trimmed scalar by scalar, so the mark stays and the
    /// drop names no trip: refused, the list unchanged.
    @Test func aDropLineEndingInACombiningMarkIsKeptAndNamesNoTrip() {
        let text = "Paris, France: 3 nig\0\0\0\0\0\0\u{02}\u{0F}hts from \u{361}"
        let drop = FavoriteDrop(text: text)
        #expect(drop.items == [.name(text)])
        var list = TripList.samples
        #expect(throws: TripsError.noTripNamed(text)) { try list.makeFavorites(drop) }
        #expect(list == TripList.samples)
    }
}
