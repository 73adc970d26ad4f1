import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsStore

/// The snapshot's fast change-event reader: the same event as the general reader for every
/// record a snapshot writes, and nil (the general reader decides) for anything else.
@Suite struct StoredEventReaderTests {
    private func fast(_ payload: [UInt8]) -> ChangeEvent? {
        payload.withUnsafeBytes { StoredLayoutReader.event($0) }
    }

    @Test func everyEventAsWrittenReadsBackTheSame() throws {
        let data = [
            #"{"revision":1,"trips":[{"city":"Say \"hi\"","notes":"Back\\slash"}]}"#, "line\nbreak\ttab\rreturn\u{1}\u{1F}\u{7F}",
            "Zürich 🙂 東京", "", #"\u0041 is not an escape here"#,
        ]
        let events = data.enumerated().map { ChangeEvent(revision: UInt64($0.offset + 1), name: "change", data: Array($0.element.utf8)) }
        let bytes = Snapshot(list: TripList(revision: UInt64(events.count)), events: events, journal: 1).bytes
        var readFast = 0
        for payload in recordPayloads(bytes) {
            if let event = fast(payload) {
                readFast += 1
                #expect(events.contains(event))
            }
        }
        #expect(readFast == events.count)
        #expect(try Snapshot(bytes: bytes, file: "snapshot").events == events)
    }

    /// Escapes and non-ASCII bytes at every position of the eight-byte steps, and runs of
    /// every length between them, read back as the general reader reads them.
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
            let bytes = Snapshot(list: TripList(revision: 1), events: [event], journal: 1).bytes
            #expect(try Snapshot(bytes: bytes, file: "snapshot").events == [event])
            #expect(recordPayloads(bytes).contains { fast($0) == event }, "\(text)")
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
