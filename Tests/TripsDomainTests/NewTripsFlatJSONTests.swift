import Testing
import TripsFormats

@testable import TripsDomain

/// A draft read straight from a flat JSON object is the draft the parsed document gives, and
/// any body the shortcut does not take is read, or refused, as before.
struct NewTripsFlatJSONTests {
    static let taken = [
        #"{"city":"Lisbon","country":"Portugal","nights":4,"price":8.999e2,"start":"2027-05-01"}"#,
        #"{"city":"Lisbon","country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01"}"#,
        #"{"city":" Porto ","country":"Portugal","nights":2,"price":120,"start":"2027-05-01T10:00:00Z","notes":"x","imageName":"porto","isFavorite":true}"#,
        #"{"notes":null,"imageName":null,"isFavorite":null,"start":"2027-05-01","price":0.5,"nights":365,"country":"Côte d'Ivoire","city":"Abidjan"}"#,
    ]

    static let leftToTheDocument = [
        // Fields the shortcut does not read, or read otherwise.
        #"{"id":3,"city":"Lisbon","country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01"}"#,
        #"{"photo":null,"city":"Lisbon","country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01"}"#,
        #"{"city":"Lisbon","country":"Portugal","nights":4.0,"price":899.9,"start":"2027-05-01"}"#,
        // Refused: an invalid draft, a missing or null field, a wrong type, an unknown member,
        // a repeated name, a list, not JSON.
        #"{"city":"Lisbon","country":"Portugal","nights":0,"price":899.9,"start":"2027-05-01"}"#,
        #"{"city":"","country":"Portugal, Spain","nights":4,"price":-1,"start":"2027-02-30"}"#,
        #"{"country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01"}"#,
        #"{"city":null,"country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01"}"#,
        #"{"city":"Lisbon","country":"Portugal","nights":"4","price":899.9,"start":"2027-05-01"}"#,
        #"{"city":"Lisbon","country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01","colour":"red"}"#,
        #"{"city":"Lisbon","city":"Porto","country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01"}"#,
        #"[{"city":"Lisbon","country":"Portugal","nights":4,"price":899.9,"start":"2027-05-01"}]"#,
        #"{"city":"Lisbon","country":"Portugal","nights":4,"price":1e999,"start":"2027-05-01"}"#,
        #"{"city":"Lisbon""#,
    ]

    /// The general reading: the document parsed, then its drafts read.
    private static func read(_ bytes: [UInt8]) -> Result<NewTrips, TripsError> {
        do throws(TripsError) {
            let document: JSONValue
            do throws(JSONSyntaxError) { document = try JSONValue(parsing: bytes) } catch { throw .malformedJSON(error) }
            return .success(try NewTrips(json: document))
        } catch {
            return .failure(error)
        }
    }

    private static func decode(_ bytes: [UInt8]) -> Result<NewTrips, TripsError> {
        let json = NewTrips.importRepresentations.first { $0.mediaType == .json }!
        do throws(TripsError) { return .success(try json.decode(bytes, nil)) } catch { return .failure(error) }
    }

    @Test(arguments: taken)
    func aPlainDraftIsTakenAsTheDocumentGivesIt(text: String) throws {
        let bytes = Array(text.utf8)
        let shortcut = try #require(NewTrips(flatJSON: bytes))
        #expect(Result.success(shortcut) == Self.read(bytes))
        #expect(Self.decode(bytes) == Self.read(bytes))
    }

    @Test(arguments: leftToTheDocument)
    func anyOtherBodyIsReadOrRefusedAsBefore(text: String) {
        let bytes = Array(text.utf8)
        #expect(NewTrips(flatJSON: bytes) == nil)
        #expect(Self.decode(bytes) == Self.read(bytes))
    }
}
