import Foundation
import Testing
import TripsDomain
@testable import TripsStore

/// Snapshot strings as start-up reads them: from a mapped file, long repeats sharing one
/// buffer (`RecentStrings`), and every awkward string back exactly as it was written.
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
        // The same strings again, in the same part: the long ones come back shared.
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

    @Test(arguments: [0, 1, 15, 16, 17, 24, 100])
    func longRepeatsShareOneBuffer(length: Int) throws {
        let text = Array(String(repeating: "é", count: length / 2).utf8) + (length % 2 == 1 ? [UInt8(ascii: "x")] : [])
        var strings = RecentStrings()
        let (first, second) = text.withUnsafeBytes { raw in
            (strings.string(raw, isASCII: false), strings.string(raw, isASCII: false))
        }
        var (a, b) = try (#require(first), #require(second))
        #expect(Array(a.utf8) == text && b == a)
        // A short string has no buffer to share: it lives in the value.
        if length > 15 { #expect(a.withUTF8 { $0.baseAddress } == b.withUTF8 { $0.baseAddress }) }
    }

    @Test func stringsOfOneSlotThatDifferAreEachRead() {
        var strings = RecentStrings(slotCount: 1)
        let texts = ["a long string of twenty-four", "a long string of twenty-five", "a long string of twenty-four", "short"]
        let read = texts.map { text in Array(text.utf8).withUnsafeBytes { strings.string($0, isASCII: true) } }
        #expect(read == texts)
        #expect(([0xFF] + Array("sixteen bytes!!!".utf8)).withUnsafeBytes { strings.string($0, isASCII: false) } == nil)
    }

    /// Bytes not known to be ASCII (a PostgreSQL row's text): checked eight at a time, a
    /// byte past ASCII anywhere, in a whole word or in the tail, makes them validated.
    @Test func bytesOfUnknownKindAreReadAsUTF8WhereverTheirLastASCIIByteIs() {
        var strings = RecentStrings()
        for length in 0...20 {
            for position in 0..<max(length, 1) {
                var valid = Array(repeating: UInt8(ascii: "a"), count: length)
                var invalid = valid
                if length > 0 {
                    valid.replaceSubrange(position..<position + 1, with: Array("é".utf8))
                    invalid[position] = 0xFF
                }
                #expect(valid.withUnsafeBytes { strings.string($0) } == String(decoding: valid, as: UTF8.self))
                #expect(invalid.withUnsafeBytes { strings.string($0) } == (length == 0 ? "" : nil))
            }
        }
    }
}
