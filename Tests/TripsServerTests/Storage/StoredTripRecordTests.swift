import Foundation
import Testing
import TripsDomain

@testable import TripsServer

/// The snapshot's fast trip reader against the general one: the same trip for every record
/// it reads, and nil (the general reader decides) for anything outside the written layout.
@Suite struct StoredTripRecordTests {
    private func fast(_ payload: String) -> (trip: Trip, version: UInt64)? {
        Array(payload.utf8).withUnsafeBytes { StoredTripRecord.read($0) }
    }

    private func general(_ payload: String) -> (trip: Trip, version: UInt64)? {
        guard var object = try? StoredObject(parsing: Array(payload.utf8), describing: "the record"),
            let version = try? object.integer("version", as: UInt64.self), let id = try? object.integer("id", as: Int.self),
            let draft = try? object.draftMembers(), (try? object.finish()) != nil
        else { return nil }
        return (Trip(id: id, draft: draft), version)
    }

    @Test func everyTripAsWrittenReadsBackTheSameBothWays() throws {
        var trips = Trip.samples
        trips.append(
            Trip(id: 41, city: "Zürich", country: "日本", nights: 365, price: Decimal(string: "0.000000000001")!, start: trips[0].start))
        trips.append(
            Trip(
                id: 42, city: #"Say "hi""#, country: "Back\\slash", nights: 1, price: 0, start: Date(timeIntervalSinceReferenceDate: 0.0001)
            ))
        trips.append(Trip(id: 43, city: "Line\nbreak", country: "Tab\tcountry", nights: 2, price: 12, start: trips[1].start, notes: "🙂"))
        let list = TripList(trips: trips, revision: 9)
        let bytes = Snapshot(list: list, journal: 1).bytes
        var offset = 0
        var readFast = 0
        while offset < bytes.count, case .record(let payload, let next) = bytes.withUnsafeBytes({ RecordFrame.read($0, at: offset) }) {
            let text = String(decoding: bytes[payload], as: UTF8.self)
            if text.hasPrefix(#"{"version""#) {
                let expected = try #require(general(text))
                if let read = fast(text) {
                    readFast += 1
                    #expect(read.trip == expected.trip && read.version == expected.version, "\(text)")
                }
            }
            offset = next
        }
        #expect(readFast == trips.count - 2)  // the escaped names go to the general reader
        #expect(try Snapshot(bytes: bytes, file: "snapshot").list == list)
    }

    @Test(arguments: [
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":"x","extra":1}"#,
        #"{"version":1, "id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"id":2,"version":1,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":01,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":1,"id":-2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1e3,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":01.5,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1.,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":1,"id":2,"city":"A\u0041","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":null,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":-3.5,"notes":""}"#,
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"yesterday","notes":""}"#,
        #"{"version":1234567890123456789,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":""}"#,
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":""} "#,
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":"#,
    ])
    func anythingElseIsLeftToTheGeneralReader(payload: String) {
        #expect(fast(payload) == nil)
    }

    @Test func rawControlCharactersAndBrokenUTF8AreNotReadFast() {
        let valid = Array(
            #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":"xy"}"#
                .utf8)
        #expect(valid.withUnsafeBytes { StoredTripRecord.read($0) } != nil)
        for bad: [UInt8] in [[0x0A], [0xFF], [0xC3], [0xED, 0xA0, 0x80]] {
            var payload = valid
            payload.replaceSubrange((payload.count - 4)..<(payload.count - 2), with: bad)
            #expect(payload.withUnsafeBytes { StoredTripRecord.read($0) } == nil, "\(bad)")
            #expect((try? StoredObject(parsing: payload, describing: "the record")) == nil, "the general reader refuses \(bad) too")
        }
    }
}
