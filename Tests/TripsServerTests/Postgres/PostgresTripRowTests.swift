import Foundation
import Testing
import TripsDomain

@testable import TripsPostgres
@testable import TripsStore

/// A `trips` row as start-up reads it in place (`PostgresTripTables.trip(_:photos:strings:)`),
/// and what it says of a row a hostile or broken database sent.
@Suite struct PostgresTripRowTests {
    private typealias Read = Result<(Trip, version: UInt64, key: Int64), PostgresStoreError>

    private static func read(_ values: [String?], photos: [String: TripPhoto] = [:]) -> Read {
        let message = Wire.dataRow(values)
        var bounds: [Range<Int>?] = []
        var strings = RecentStrings()
        return message.withUnsafeBytes { raw in
            _ = try? BackendMessageDecoder().dataRow(raw, bounds: &bounds)
            return Result { () throws(PostgresStoreError) in
                try PostgresTripTables.trip(PostgresRowValues(message: raw, bounds: bounds), photos: photos, strings: &strings)
            }
        }
    }

    private static let row: [String?] = ["7", "12", "Zürich", "Switzerland", "3", "t", "", "1299.90", "820454400.5", "", nil, "65536"]

    @Test func aRowReadsAsTheTripItHolds() throws {
        let (trip, version, key) = try Self.read(Self.row).get()
        #expect(trip.id == 7 && trip.city == "Zürich" && trip.country == "Switzerland" && trip.nights == 3 && trip.isFavorite)
        #expect(trip.price == Decimal(string: "1299.9") && trip.start.timeIntervalSinceReferenceDate == 820_454_400.5)
        #expect(trip.photo == nil && version == 12 && key == 65_536)
    }

    /// A huge value in a row that does not read is named by its first bytes and its length:
    /// the message goes to the log.
    @Test func aRowThatDoesNotReadIsDamagedAndItsValuesAreShortenedInTheMessage() {
        var row = Self.row
        row[2] = String(repeating: "x", count: 1_000_000)
        row[4] = "many"
        guard case .failure(.damaged(let reason)) = Self.read(row) else {
            Issue.record("a row whose nights read \"many\" must be damaged")
            return
        }
        #expect(reason.utf8.count < 1_000 && reason.contains("(1000000 bytes)") && reason.contains("many"))

        var withPhoto = Self.row
        withPhoto[10] = String(repeating: "f", count: 100_000)
        guard case .failure(.damaged(let missing)) = Self.read(withPhoto) else {
            Issue.record("a row naming a photo trip_photos lacks must be damaged")
            return
        }
        #expect(missing.utf8.count < 1_000 && missing.contains("which trip_photos lacks"))
    }

    /// A stored event goes to the feed as it is (another instance's change is told as its
    /// writer told it), so what would break the feed's framing is refused: a name the feed
    /// does not send, data over more than one line, data that is not an object or does not
    /// open with the row's revision.
    @Test func aStoredEventThatWouldBreakTheFeedsFramingIsDamaged() throws {
        let event = try PostgresTripTables.event(revision: 4, name: "deleted", data: #"{"revision":4,"ids":[2]}"#)
        #expect(event == ChangeEvent(revision: 4, name: "deleted", data: Array(#"{"revision":4,"ids":[2]}"#.utf8)))
        #expect(try PostgresTripTables.event(revision: 4, name: "deleted", data: #"{"revision":4}"#).revision == 4)
        #expect(PostgresTripTables.opens(Array(#"{"revision":0}"#.utf8), with: 0))
        #expect(PostgresTripTables.opens(Array(#"{"revision":18446744073709551615,"x":1}"#.utf8), with: .max))
        let refused: [(name: String?, data: String?)] = [
            ("deleted\ndata: {}", #"{"revision":4}"#), ("reset", #"{"revision":4}"#), (nil, #"{"revision":4}"#),
            ("deleted", "{\"revision\":4}\n\ndata: {}"), ("deleted", "{\"revision\":4,\r\"ids\":[]}"),
            ("deleted", "[4]"), ("deleted", ""), ("deleted", nil),
            // Not opening with the row's revision: a client would resume from the wrong place.
            ("deleted", #"{"revision":5,"ids":[2]}"#), ("deleted", #"{"revision":45,"ids":[2]}"#), ("deleted", #"{"ids":[2]}"#),
            ("deleted", #"{"revision":04,"ids":[2]}"#), ("deleted", #"{"revision":,"ids":[2]}"#), ("deleted", #"{"revision":4"#),
            ("deleted", #"{"revision":4 ,"ids":[2]}"#), ("deleted", #"{"revision":-4}"#), ("deleted", #"{"revision":}"#),
            ("deleted", #"{"revision":18446744073709551620}"#), ("deleted", #" {"revision":4}"#),
        ]
        for (name, data) in refused {
            #expect(throws: PostgresStoreError.self, "\(String(describing: name)) \(String(describing: data))") {
                try PostgresTripTables.event(revision: 4, name: name, data: data)
            }
            // The same from a row's bytes, as a replay reads them.
            #expect(throws: PostgresStoreError.self, "bytes: \(String(describing: name)) \(String(describing: data))") {
                try Self.event(name: name.map { Array($0.utf8) }, data: data.map { Array($0.utf8) })
            }
        }
        let fromBytes = try Self.event(name: Array("deleted".utf8), data: Array(#"{"revision":4,"ids":[2]}"#.utf8))
        #expect(fromBytes == event)
        // Bytes that are not UTF-8 would reach every feed client as they are.
        #expect(throws: PostgresStoreError.self) {
            try Self.event(name: Array("deleted".utf8), data: Array(#"{"revision":4,"ids":[2],"x":""#.utf8) + [0xFF, 0x22, 0x7D])
        }
    }

    /// `PostgresTripTables.event(revision: 4, name:data:)` from bytes, as a row lends them.
    private static func event(name: [UInt8]?, data: [UInt8]?) throws -> ChangeEvent {
        let nameBytes = name ?? []
        let dataBytes = data ?? []
        return try nameBytes.withUnsafeBytes { nameBuffer in
            try dataBytes.withUnsafeBytes { dataBuffer in
                try PostgresTripTables.event(revision: 4, name: name == nil ? nil : nameBuffer, data: data == nil ? nil : dataBuffer)
            }
        }
    }
}
