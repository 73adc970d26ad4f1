import Foundation
import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// The snapshot's fast trip reader against the general one: the same trip for every record
/// it reads, and nil (the general reader decides) for anything outside the written layout.
@Suite struct StoredLayoutReaderTests {
    private func fast(_ payload: String) -> (trip: Trip, version: UInt64)? {
        fast(Array(payload.utf8))
    }

    private func fast(_ payload: [UInt8]) -> (trip: Trip, version: UInt64)? {
        var strings = RecentStrings()
        return payload.withUnsafeBytes { StoredLayoutReader.trip($0, strings: &strings) }
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
        var readFast = 0
        for payload in recordPayloads(bytes) {
            let text = String(decoding: payload, as: UTF8.self)
            guard text.hasPrefix(#"{"version""#) else { continue }
            let expected = try #require(general(text))
            if let read = fast(text) {
                readFast += 1
                #expect(read.trip == expected.trip && read.version == expected.version, "\(text)")
            }
        }
        #expect(readFast == trips.count - 2)  // the escaped names go to the general reader
        #expect(try Snapshot(bytes: bytes, file: "snapshot").list == list)
    }

    /// Quotes, backslashes, control characters and multi-byte characters at every position of the
    /// eight-byte steps strings are read in: read fast exactly when nothing in the record is
    /// escaped, as the general reader reads them, and the snapshot reads back whole.
    @Test func stringsWithSpecialsAnywhereReadAsTheGeneralReaderReadsThem() throws {
        var trips: [Trip] = []
        for length in 0...20 {
            for special in ["\"", "\\", "\u{1}", "é", "東", "x"] {
                for position in 0...length {
                    let city = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position)
                    trips.append(
                        Trip(id: trips.count + 1, city: city, country: "C", nights: 1, price: 1, start: Trip.samples[0].start, notes: city))
                }
            }
        }
        let list = TripList(trips: trips, revision: 1)
        let bytes = Snapshot(list: list, journal: 1).bytes
        for payload in recordPayloads(bytes) {
            let text = String(decoding: payload, as: UTF8.self)
            guard text.hasPrefix(#"{"version""#) else { continue }
            let expected = try #require(general(text))
            if let read = fast(text) {
                #expect(read.trip == expected.trip, "\(text)")
                #expect(!text.contains("\\"), "\(text)")
            } else {
                #expect(text.contains("\\"), "read slowly: \(text)")
            }
        }
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
        #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00\u005A","notes":""}"#,
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

    /// Prices are built from their digits, not parsed: the same value, exponent and written
    /// form as `Decimal(string:)` gives (trailing zeros folded into the exponent), or nil past
    /// 18 digits.
    @Test(arguments: [
        "0", "1", "10", "1200", "7.10", "100.00", "0.5", "1299.99", "1299.90", "0.000000000001", "10.000",
        "999999999999999999", "123456789.123456789", "100000000000000000", "0.00",
    ])
    func pricesReadFastAsDecimalStringReadsThem(price: String) throws {
        let payload =
            #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":"#
            + price + #","start":"2027-03-05T00:00:00Z","notes":""}"#
        let trip = try #require(fast(payload)?.trip)
        let read = trip.price
        let expected = try #require(Decimal(string: price, locale: nil))
        #expect(read == expected && read.description == expected.description)
        #expect(trip.exactPrice.digits == expected.description)
        #expect(read.exponent == expected.exponent || expected.isZero)  // `0.00` keeps an exponent of -2, unseen
    }

    @Test func pricesOfMoreThanEighteenDigitsAreLeftToTheGeneralReader() {
        let payload =
            #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1234567890.123456789,"start":"2027-03-05T00:00:00Z","notes":""}"#
        #expect(fast(payload) == nil)
        #expect(general(payload) != nil)
    }

    @Test func rawControlCharactersAndBrokenUTF8AreNotReadFast() {
        let valid = Array(
            #"{"version":1,"id":2,"city":"A","country":"B","nights":3,"isFavorite":false,"imageName":"","price":1,"start":"2027-03-05T00:00:00Z","notes":"xy"}"#
                .utf8)
        #expect(fast(valid) != nil)
        for bad: [UInt8] in [[0x0A], [0xFF], [0xC3], [0xED, 0xA0, 0x80]] {
            var payload = valid
            payload.replaceSubrange((payload.count - 4)..<(payload.count - 2), with: bad)
            #expect(fast(payload) == nil, "\(bad)")
            #expect((try? StoredObject(parsing: payload, describing: "the record")) == nil, "the general reader refuses \(bad) too")
        }
    }

    /// A snapshot's trip records, in this order, with a record that names no id where `flawed` says.
    private func tripFrames(_ count: Int, flawed: Set<Int> = []) -> (bytes: [UInt8], frames: [Snapshot.Frame], trips: [Trip]) {
        var bytes: [UInt8] = []
        var frames: [Snapshot.Frame] = []
        var trips: [Trip] = []
        for index in 0..<count {
            var writer = JSONWriter(reservingCapacity: 256)
            if flawed.contains(index) {
                writer.appendRaw(#"{"version":1}"#)
            } else {
                let trip = Trip(id: index + 1, city: "City \(index)", country: "Country", nights: 1, price: 1, start: Trip.samples[0].start)
                trips.append(trip)
                writer.appendRaw(#"{"version":1,"id":"#)
                writer.appendInteger(trip.id)
                writer.appendRaw(",")
                writer.appendDraftMembers(trip.draft)
                writer.appendRaw("}")
            }
            let start = bytes.count
            RecordFrame.append(payload: writer.bytes, to: &bytes)
            frames.append((start, (bytes.count - writer.bytes.count)..<bytes.count))
        }
        return (bytes, frames, trips)
    }

    @Test func tripsReadInPartsComeBackInOrder() throws {
        let (bytes, frames, trips) = tripFrames(40)
        var read: [Trip] = []
        try bytes.withUnsafeBytes { raw in
            try Snapshot.readTrips(frames, of: FileContents(raw), file: "snapshot", partSize: 3) { _, trip, _ in read.append(trip) }
        }
        #expect(read == trips)
    }

    @Test func theFirstFlawInFileOrderIsNamedWhicheverPartFindsIt() {
        let (bytes, frames, _) = tripFrames(40, flawed: [5, 35])
        #expect {
            try bytes.withUnsafeBytes { raw in
                try Snapshot.readTrips(frames, of: FileContents(raw), file: "snapshot", partSize: 3) { _, _, _ in }
            }
        } throws: { error in
            guard case StorageError.corrupt(_, let offset, let reason) = error else { return false }
            return offset == frames[5].start && reason == "id is missing"
        }
    }

    @Test func addRecordsAsWrittenReadTheSameBothWays() throws {
        let drafts = Trip.samples.map(\.draft)
        let keyUse = IdempotencyKeyUse(
            key: "k-1", fingerprint: "f", at: 1_796_000_000, answer: StoredAnswer(status: 201, fields: [:], content: .body([])))
        let records = [
            JournalRecord(revision: 7, change: .add(drafts[0])),
            JournalRecord(revision: 8, change: .add(drafts, before: 3)),
            JournalRecord(revision: 9, change: .add([drafts[1], drafts[2]], before: nil)),
            JournalRecord(
                revision: 10,
                change: .add([TripDraft(city: #"A "quoted" city"#, country: "B", nights: 1, price: 1, start: drafts[0].start)], before: nil)
            ),
            JournalRecord(revision: 11, change: .add([drafts[0]], before: nil), idempotency: keyUse),
            JournalRecord(revision: 12, change: .delete([1, 2])),
        ]
        for record in records {
            let payload = record.payload
            #expect(try JournalRecord(payload: payload) == record)
            let fast = payload.withUnsafeBytes(StoredLayoutReader.addRecord)
            #expect(fast == (record.revision <= 9 ? record : nil), "\(String(decoding: payload, as: UTF8.self))")
        }
    }
}
