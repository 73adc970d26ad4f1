import Foundation
import Testing
import TripsDomain

@testable import TripsFormats

/// A photo with a digest made of `digit`, as a store names one.
func examplePhoto(_ digit: Character = "a", format: ImageFormat = .jpeg, byteCount: Int = 183_442) -> TripPhoto {
    TripPhoto(digest: String(repeating: digit, count: 64), format: format, width: 1200, height: 800, byteCount: byteCount)!
}

private func json(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: Array(text.utf8))
}

private func written(_ trip: Trip) -> String {
    var writer = JSONWriter()
    trip.writeJSON(to: &writer)
    return String(decoding: writer.bytes, as: UTF8.self)
}

@Suite struct TripPhotoTests {
    @Test func aPhotoIsWellFormedOrNotAtAll() {
        #expect(TripPhoto(digest: String(repeating: "0", count: 64), format: .png, width: 1, height: 1, byteCount: 1) != nil)
        for digest in [String(repeating: "A", count: 64), String(repeating: "a", count: 63), "../" + String(repeating: "a", count: 61), ""]
        {
            #expect(TripPhoto(digest: digest, format: .png, width: 1, height: 1, byteCount: 1) == nil, "\(digest)")
        }
        let digest = String(repeating: "a", count: 64)
        #expect(TripPhoto(digest: digest, format: .png, width: 0, height: 1, byteCount: 1) == nil)
        #expect(TripPhoto(digest: digest, format: .png, width: 1, height: -1, byteCount: 1) == nil)
        #expect(TripPhoto(digest: digest, format: .png, width: 1, height: 1, byteCount: 0) == nil)
        // Storage claiming more than an image header or --max-photo-bytes allows (sums of them overflowed).
        let most = Int(Int32.max)
        #expect(TripPhoto(digest: digest, format: .png, width: most, height: most, byteCount: most) != nil)
        #expect(TripPhoto(digest: digest, format: .png, width: 1, height: 1, byteCount: most + 1) == nil)
        #expect(TripPhoto(digest: digest, format: .png, width: most + 1, height: 1, byteCount: 1) == nil)
        #expect(TripPhoto(digest: digest, format: .png, width: 1, height: .max, byteCount: 1) == nil)
    }

    @Test func theURLNamesTheDigestAndTheExtensionAndReadsBack() throws {
        let photo = examplePhoto("b", format: .webp)
        #expect(photo.url == "/photos/" + String(repeating: "b", count: 64) + ".webp")
        let parsed = try #require(TripPhoto.parseURL(photo.url))
        #expect(parsed.digest == photo.digest && parsed.format == .webp)
        #expect(TripPhoto.parseURL("/photos/" + String(repeating: "b", count: 64) + ".gif") == nil)
        #expect(TripPhoto.parseURL("/photos/../etc/passwd.jpg") == nil)
        #expect(TripPhoto.parseURL("/trips/2") == nil)
    }

    @Test func aTripsJSONShowsItsPhotoAfterTheNotes() throws {
        var trip = TripList.samples[2]!
        trip.photo = examplePhoto()
        let text = written(trip)
        #expect(
            text.hasSuffix(
                #""notes":"Stanley Park by bike.","photo":{"url":"/photos/\#(String(repeating: "a", count: 64)).jpg","type":"image/jpeg","width":1200,"height":800,"bytes":183442}}"#
            ))
        // A client that sends the trip back as it read it replaces it with itself.
        let draft = try TripDraft(json: json(text), replacing: trip)
        #expect(draft == trip.draft)
    }

    @Test func codableCarriesThePhoto() throws {
        var trip = TripList.samples[2]!
        trip.photo = examplePhoto(format: .png)
        let data = try JSONEncoder().encode(trip)
        #expect(try JSONDecoder().decode(Trip.self, from: data) == trip)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let photo = try #require(object["photo"] as? [String: Any])
        #expect(photo["type"] as? String == "image/png")
        #expect(
            written(try JSONDecoder().decode(Trip.self, from: JSONEncoder().encode(TripList.samples[2]!))).hasSuffix(#","photo":null}"#))
    }

    // MARK: A body that shows `photo` is read as one that shows `id`

    private let body = #"{"city":"Victoria","country":"Canada","nights":2,"price":500,"start":"2027-03-05""#

    @Test func aNewTripMayShowNoPhotoOrNullAsItMayShowNoID() throws {
        #expect(try TripDraft(json: json(body + "}")).city == "Victoria")
        #expect(try TripDraft(json: json(body + #","id":null,"photo":null}"#)).city == "Victoria")
    }

    @Test func aNewTripThatShowsAPhotoIsRefusedAsOneThatShowsAnID() throws {
        var shown = TripList.samples[2]!
        shown.photo = examplePhoto()
        let photoJSON = String(written(shown).split(separator: #""photo":"#).last!.dropLast())
        let error = #expect(throws: TripsError.self) { try TripDraft(json: json(body + #","id":7,"photo":\#(photoJSON)}"#)) }
        #expect(
            error?.flattened == [
                .invalidField(.id, "is issued by the server; leave it out"),
                .invalidField(.photo, "is set with PUT /trips/{id}/photo once the trip exists; leave it out"),
            ])
    }

    @Test func aReplacementMayShowTheTripsOwnPhotoOnly() throws {
        var trip = TripList.samples[2]!
        trip.photo = examplePhoto()
        var other = trip
        other.photo = examplePhoto("c")
        let own = String(written(trip).split(separator: #""photo":"#).last!.dropLast())
        let another = String(written(other).split(separator: #""photo":"#).last!.dropLast())
        #expect(try TripDraft(json: json(body + #","id":2,"photo":\#(own)}"#), replacing: trip).city == "Victoria")
        #expect(try TripDraft(json: json(body + #","photo":null}"#), replacing: trip).city == "Victoria")
        let error = #expect(throws: TripsError.self) {
            try TripDraft(json: json(body + #","id":3,"photo":\#(another)}"#), replacing: trip)
        }
        #expect(error?.flattened.map(\.description) == ["id: must match the trip's id 2", "photo: " + readOnly])
        // A trip without a photo: any photo shown is another one.
        #expect(throws: TripsError.invalidField(.photo, readOnly)) {
            try TripDraft(json: json(body + #","photo":\#(own)}"#), replacing: TripList.samples[2]!)
        }
    }

    @Test(arguments: [
        #"3"#, #"{"url":"/photos/x.jpg","type":"image/jpeg","width":1,"height":1,"bytes":1}"#,
        #"{"url":"/photos/\#(String(repeating: "a", count: 64)).jpg","type":"image/png","width":1,"height":1,"bytes":1}"#,
        #"{"url":"/photos/\#(String(repeating: "a", count: 64)).jpg","type":"image/jpeg","width":1,"height":1}"#,
        #"{"url":"/photos/\#(String(repeating: "a", count: 64)).jpg","type":"image/jpeg","width":1,"height":1,"bytes":1,"x":1}"#,
    ])
    func aMalformedPhotoIsAnErrorOfItsMember(photo: String) {
        let error = #expect(throws: TripsError.self) {
            try TripDraft(json: json(body + #","photo":\#(photo)}"#), replacing: TripList.samples[2]!)
        }
        guard case .invalidMember("photo", _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    private var readOnly: String {
        "is read-only: send the trip's photo as its JSON shows it, or leave it out (PUT /trips/{id}/photo sets it, DELETE clears it)"
    }

    @Test func aMergePatchMayNameThePhotoOnlyAsItIs() throws {
        var list = TripList.samples
        try list.setPhoto(2, examplePhoto())
        let own = String(written(list[2]!).split(separator: #""photo":"#).last!.dropLast())
        #expect(try list.patch(2, with: json(#"{"nights":5,"photo":\#(own)}"#)).photo == examplePhoto())
        #expect(throws: TripsError.invalidField(.photo, readOnly)) { try list.patch(2, with: json(#"{"photo":null}"#)) }
        #expect(throws: TripsError.invalidField(.photo, readOnly)) { try list.patch(2, with: json(#"{"photo":{"width":5}}"#)) }
        #expect(try list.patch(3, with: json(#"{"photo":null}"#)).photo == nil)  // none, and null says so
    }

    // MARK: The list

    @Test func settingAPhotoIsAChangeOfTheTripAndAReplaceKeepsIt() throws {
        var list = TripList.samples
        let before = try #require(list.version(of: 2))
        let outcome = try list.apply(.setPhoto(2, examplePhoto()))
        #expect(outcome == .trip(list[2]!))
        #expect(list.revision == 1 && list.version(of: 2) == 1 && before == 0)
        #expect(try list.apply(.setPhoto(2, examplePhoto())) == .trip(list[2]!))
        #expect(list.revision == 1)  // the same photo again changes nothing
        try list.replace(2, with: TripList.samples[3]!.draft)
        #expect(list[2]?.photo == examplePhoto() && list[2]?.city == "Atacama")
        try list.setFavorite(2, true)
        #expect(list[2]?.photo == examplePhoto())
        try list.apply(.setPhoto(2, nil))
        #expect(list[2]?.photo == nil && list.revision == 4)
        #expect(throws: TripsError.unknownTrips([42])) { try list.apply(.setPhoto(42, examplePhoto())) }
    }

    @Test func theListCountsEachPhotoOnceWhileATripRefersToIt() throws {
        var list = TripList.samples
        try list.setPhoto(1, examplePhoto("a", byteCount: 10))
        try list.setPhoto(2, examplePhoto("a", byteCount: 10))
        try list.setPhoto(3, examplePhoto("b", byteCount: 5))
        #expect(list.photos.count == 2 && list.photos.byteCount == 15)
        #expect(list.photos.digests == [examplePhoto("a").digest, examplePhoto("b").digest])
        try list.setPhoto(1, nil)
        #expect(list.photos[examplePhoto("a").digest] != nil)  // trip 2 still has it
        try list.delete([2])
        #expect(list.photos[examplePhoto("a").digest] == nil && list.photos.count == 1 && list.photos.byteCount == 5)
        try list.setPhoto(3, examplePhoto("c", byteCount: 7))
        #expect(list.photos.digests == [examplePhoto("c").digest] && list.photos.byteCount == 7)
        // A list restored with the same trips counts the same.
        let restored = TripList(restoring: list.trips.map { ($0, list.version(of: $0.id)!) }, revision: list.revision, lastIssuedID: 6)
        #expect(restored.photos == list.photos)
    }

    @Test func theChangeFeedTellsAPhotoAsAnUpdate() throws {
        var list = TripList.samples
        let (_, event) = try list.applyTelling(.setPhoto(2, examplePhoto()))
        #expect(event?.name == "updated")
        let data = String(decoding: event?.data ?? [], as: UTF8.self)
        #expect(data.hasPrefix(#"{"revision":1,"trip":{"id":2,"#) && data.contains(#""photo":{"url":"/photos/"#))
        #expect(try list.applyTelling(.setPhoto(2, examplePhoto())).event == nil)
    }
}

@Suite struct TripPhotoLayoutTests {
    @Test func aPhotoCostsATripOneReference() {
        #expect(MemoryLayout<TripPhoto?>.size == MemoryLayout<Int>.size)
        #expect(examplePhoto() == examplePhoto() && examplePhoto().hashValue == examplePhoto().hashValue)
        #expect(examplePhoto("a") != examplePhoto("b") && examplePhoto(byteCount: 1) != examplePhoto(byteCount: 2))
    }

    /// A list keeps a million trips: their fields are ordered so that none pads another.
    @Test func aTripIsPackedWithoutPadding() {
        #expect(MemoryLayout<Price>.size == 36)
        #expect(MemoryLayout<Trip>.size == 133)
    }
}
