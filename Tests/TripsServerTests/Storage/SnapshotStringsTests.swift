import Foundation
import Testing
import TripsDomain
@testable import TripsStore

/// Snapshot strings as start-up reads them: from a mapped file, every awkward string back
/// exactly as it was written.
@Suite struct SnapshotStringsTests {
    /// Names and notes around the 15-byte line (inside a `String` below it, a buffer of its
    /// own above), with escapes, other scripts, and long repeats.
    private static let awkward = [
        "", "a", "fifteen bytes..", "sixteen bytes...", "Zürich, fifteen", "Zürich sixteen.", "日本語の五文字", "日本語の六文字だ",
        #"quote " and \ back"#, "line\nbreak\tand tab", "🙂🙂🙂🙂", "🙂🙂🙂🙂x", "United States of America", "United States of America",
        "United States of Americb", String(repeating: "long repeated note, ", count: 20) + "end",
    ]

    private static var list: TripList {
        let start = Date(timeIntervalSince1970: 1_803_859_200)
        var trips: [Trip] = []
        for (index, text) in awkward.enumerated() {
            let other = awkward[(index + 3) % awkward.count]
            trips.append(
                Trip(
                    id: index + 1, city: text.isEmpty ? "City" : text, country: other.isEmpty ? "Country" : other, nights: 1,
                    imageName: other, price: Decimal(index), start: start, notes: text))
        }
        // The same strings again, in the same part.
        for trip in trips { trips.append(Trip(id: trips.count + 1, draft: trip.draft)) }
        return TripList(trips: trips, revision: 3)
    }

    @Test func awkwardStringsComeBackFromArraysAndMappedFiles() throws {
        let list = Self.list
        let bytes = Snapshot(list: list, journal: 1).bytes
        #expect(try Snapshot(bytes: bytes, file: "snapshot").list == list)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-strings-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let mapped = try PosixFileSystem().withContents(of: path) { (contents) throws(StorageError) in
            try Snapshot(contents: contents, file: path)
        }
        #expect(mapped?.list == list)
        #expect(Array(mapped?.list.trips ?? TripList().trips) == Array(list.trips))
    }

    @Test func aMissingFileLendsNothing() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)").path
        #expect(try PosixFileSystem().withContents(of: path) { $0.bytes.count } == nil)
    }

    @Test func releasedPagesOfAMappingReadTheSameAgain() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let reread = try PosixFileSystem().withContents(of: path) { contents in
            let first = Array(contents.bytes)
            contents.release(10..<90_000)
            return (first, Array(contents.bytes))
        }
        #expect(reread?.0 == bytes)
        #expect(reread?.1 == bytes)
    }
}
