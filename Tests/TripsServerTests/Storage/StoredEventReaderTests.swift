import Foundation
import Testing
import TripsDomain
import TripsFormats
import TripsTestSupport

@testable import TripsStore

/// The snapshot's change-event readers: from format 6 on, the data's bytes as they are;
/// before it, the fast reader of the escaped data gives the same event as the general reader
/// for every record such a snapshot holds, and nil (the general reader decides) for anything
/// else.
@Suite struct StoredEventReaderTests {
    private func fast(_ payload: [UInt8]) -> ChangeEvent? {
        payload.withUnsafeBytes { StoredLayoutReader.event($0) }
    }

    /// An event as snapshots wrote it before format 6: the data as a JSON string.
    private func formatFiveRecord(_ event: ChangeEvent) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64)
        writer.appendRaw(#"{"revision":"#)
        writer.appendInteger(event.revision)
        writer.appendRaw(#","event":"#)
        writer.appendString(event.name)
        writer.appendRaw(#","data":"#)
        writer.appendString(String(decoding: event.data, as: UTF8.self))
        writer.appendRaw("}")
        return writer.bytes
    }

    /// A format 5 snapshot of an empty list at the last event's revision, holding `events`.
    private func formatFiveSnapshot(_ events: [ChangeEvent]) -> [UInt8] {
        var bytes: [UInt8] = []
        let revision = events.last?.revision ?? 0
        let header = #"{"format":5,"journal":1,"revision":\#(revision),"lastIssuedID":0,"trips":0,"events":\#(events.count),"keys":0}"#
        RecordFrame.append(payload: Array(header.utf8), to: &bytes)
        for event in events { RecordFrame.append(payload: formatFiveRecord(event), to: &bytes) }
        return bytes
    }

    private static let data = [
        #"{"revision":1,"trips":[{"city":"Say \"hi\"","notes":"Back\\slash"}]}"#, "line\nbreak\ttab\rreturn\u{1}\u{1F}\u{7F}",
        "Zürich 🙂 東京", "", #"\u0041 is not an escape here"#, "}", #"{"data":"}"}"#,
    ]
    private static let events = data.enumerated().map {
        ChangeEvent(revision: UInt64($0.offset + 1), name: "change", data: Array($0.element.utf8))
    }

    @Test func everyEventReadsBackAsItsBytes() throws {
        let bytes = Snapshot(list: TripList(revision: UInt64(Self.events.count)), events: Self.events, journal: 1).bytes
        #expect(try Snapshot(bytes: bytes, file: "snapshot").events == Self.events)
        let payloads = recordPayloads(bytes)
        #expect(payloads.last == Array(#"{"revision":7,"event":"change","data":{"data":"}"}}"#.utf8))
        for payload in payloads.dropFirst() {
            #expect(payload.withUnsafeBytes { StoredLayoutReader.eventWithBytes($0) }.map { Self.events.contains($0) } == true)
        }
    }

    @Test func anEventThatIsNotUTF8OrDoesNotEndInABraceIsDamage() throws {
        let valid = Array(#"{"revision":1,"event":"change","data":{}}"#.utf8)
        #expect(valid.withUnsafeBytes { StoredLayoutReader.eventWithBytes($0) }?.data == Array("{}".utf8))
        for broken in [
            Array(#"{"revision":1,"event":"change","data":"#.utf8) + [0xC3, 0x28, UInt8(ascii: "}")],
            Array(#"{"revision":1,"event":"change","data":[]"#.utf8), Array(#"{"revision":1,"event":"change","data":"#.utf8),
            Array(#"{"revision":1,"event":"change"}"#.utf8), Array(#"{"event":"change","revision":1,"data":{}}"#.utf8),
        ] {
            #expect(broken.withUnsafeBytes { StoredLayoutReader.eventWithBytes($0) } == nil, "\(String(decoding: broken, as: UTF8.self))")
            var bytes: [UInt8] = []
            RecordFrame.append(
                payload: Array(#"{"format":6,"journal":1,"revision":1,"lastIssuedID":0,"trips":0,"events":1,"keys":0}"#.utf8), to: &bytes)
            RecordFrame.append(payload: broken, to: &bytes)
            #expect(throws: StorageError.self) { try Snapshot(bytes: bytes, file: "snapshot") }
        }
    }

    /// A header past what issuing the next id or counting the next revision can take is
    /// refused (both overflowed later), and one just within reads.
    @Test(arguments: [
        (revision: "9223372036854775808", lastIssuedID: "0", reads: false), (revision: "0", lastIssuedID: "9007199254740992", reads: false),
        (revision: "9223372036854775807", lastIssuedID: "9007199254740991", reads: true),
    ])
    func aHeaderPastTheCountsIsRefused(revision: String, lastIssuedID: String, reads: Bool) {
        var bytes: [UInt8] = []
        let header = #"{"format":6,"journal":1,"revision":\#(revision),"lastIssuedID":\#(lastIssuedID),"trips":0,"events":0,"keys":0}"#
        RecordFrame.append(payload: Array(header.utf8), to: &bytes)
        let outcome = Result { try Snapshot(bytes: bytes, file: "snapshot") }
        #expect(((try? outcome.get()) != nil) == reads, "\(outcome)")
    }

    @Test func aFormatFiveSnapshotsEventsReadBackTheSame() throws {
        let bytes = formatFiveSnapshot(Self.events)
        var readFast = 0
        for payload in recordPayloads(bytes) {
            if let event = fast(payload) {
                readFast += 1
                #expect(Self.events.contains(event))
            }
        }
        #expect(readFast == Self.events.count)
        #expect(try Snapshot(bytes: bytes, file: "snapshot").events == Self.events)
    }

    /// Escapes and non-ASCII bytes at every position of the eight-byte steps, and runs of
    /// every length between them, read back as the general reader reads them (format 5), and
    /// as they are (format 6).
    @Test func escapesAnywhereInLongRunsReadBack() throws {
        let specials = ["\"", "\\", "\n", "\t", "\u{1}", "é", "東"]
        var random = SplitMix64(seed: 33)
        for _ in 0..<300 {
            var text = ""
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                text += String(repeating: "x", count: Int.random(in: 0...19, using: &random))
                text += specials.randomElement(using: &random)!
            }
            text += String(repeating: "y", count: Int.random(in: 0...9, using: &random))
            let event = ChangeEvent(revision: 1, name: "change", data: Array(text.utf8))
            let bytes = formatFiveSnapshot([event])
            #expect(try Snapshot(bytes: bytes, file: "snapshot").events == [event])
            #expect(recordPayloads(bytes).contains { fast($0) == event }, "\(text)")
            let formatSix = Snapshot(list: TripList(revision: 1), events: [event], journal: 1).bytes
            #expect(try Snapshot(bytes: formatSix, file: "snapshot").events == [event])
        }
    }

    @Test(arguments: [
        #"{"revision":1,"event":"change","data":"a\/b"}"#, #"{"revision":1,"event":"change","data":"\u0100"}"#,
        #"{"revision":1,"event":"change","data":"\u00e9"}"#, #"{"revision":1,"event":"change","data":"\ud83d\ude42"}"#,
        #"{"revision":1,"event":"change","data":"\x"}"#, #"{"revision":1,"event":"change","data":"\"#,
        #"{"revision":1,"event":"change","data":"open"#, #"{"event":"change","revision":1,"data":""}"#,
        #"{"revision":1,"event":"change","data":""} "#, "{\"revision\":1,\"event\":\"change\",\"data\":\"tab\u{9}inside\"}",
    ])
    func anythingElseIsLeftToTheGeneralReader(payload: String) {
        #expect(fast(Array(payload.utf8)) == nil)
    }

    @Test func invalidUTF8IsLeftToTheGeneralReader() {
        #expect(fast(Array(#"{"revision":1,"event":"change","data":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)) == nil)
        #expect(fast(Array(#"{"revision":1,"event":"change","data":"é"}"#.utf8))?.data == Array("é".utf8))
    }
}
