import Testing

@testable import TripsHTTP
@testable import TripsPlatform

@Suite struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func aVersion00TraceparentGivesItsTraceSpanAndFlags() throws {
        let parent = try #require(TraceContext.Parent(traceparent: Self.valid))
        #expect(parent.traceIDHigh == 0x4bf9_2f35_77b3_4da6)
        #expect(parent.traceIDLow == 0xa3ce_929d_0e0e_4736)
        #expect(parent.parentID == 0x00f0_67aa_0ba9_02b7)
        #expect(parent.flags == 1)
    }

    @Test(arguments: [
        ("", "empty"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0", "one character short"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", "version 00 with more after the flags"),
        ("00-4bf92f3577b34da6a3ce929d0e0e473-600f067aa0ba902b7-01", "a dash out of place"),
        ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "uppercase trace id"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01", "uppercase parent id"),
        ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", "all-zero trace id"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "all-zero parent id"),
        ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "version ff"),
        ("0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "a version that is not hex"),
        ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x", "flags that are not hex"),
        ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", "a later version with no dash after the flags"),
        ("00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01", "underscores"),
    ])
    func aMalformedTraceparentIsIgnored(value: String, why: String) {
        #expect(TraceContext.Parent(traceparent: value) == nil, "\(why)")
    }

    @Test func aLaterVersionIsReadByItsFirstFourFieldsKeepingOnlyTheSampledFlag() throws {
        let later = try #require(
            TraceContext.Parent(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-what-comes-next"))
        #expect(later.traceIDLow == 0xa3ce_929d_0e0e_4736)
        #expect(later.flags == 1)
        #expect(TraceContext.Parent(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.flags == 0)
    }

    @Test func twoTraceparentFieldsAreMalformed() {
        let fields: HTTPFields = [.traceparent: Self.valid]
        var twice = fields
        twice.append(.traceparent, Self.valid)
        #expect(TraceContext.Parent(fields) != nil)
        #expect(TraceContext.Parent(twice) == nil)
    }

    @Test func theServersSpanIsWrittenAsAVersion00Traceparent() {
        let context = TraceContext(
            traceIDHigh: 0x4bf9_2f35_77b3_4da6, traceIDLow: 0xa3ce_929d_0e0e_4736, spanID: 0xb7, parentID: 0x00f0_67aa_0ba9_02b7,
            flags: 1, state: "congo=t61rcWkgMzE")
        #expect(context.traceparent == "00-4bf92f3577b34da6a3ce929d0e0e4736-00000000000000b7-01")
        var lines: [UInt8] = []
        context.appendFieldLines(to: &lines)
        #expect(
            String(decoding: lines, as: UTF8.self)
                == "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00000000000000b7-01\r\ntracestate: congo=t61rcWkgMzE\r\n")
    }

    @Test func hexDigitsAreLowercaseAndInOrder() {
        var bytes: [UInt8] = []
        for word: UInt64 in [0x0123_4567_89ab_cdef, .max, 0, 0xa0b0_c0d0_e0f0_0a0b] { TraceContext.appendHex(word, to: &bytes) }
        #expect(String(decoding: bytes, as: UTF8.self) == "0123456789abcdef" + "ffffffffffffffff" + "0000000000000000" + "a0b0c0d0e0f00a0b")
    }

    @Test func aContinuedTraceKeepsTheTraceAndFlagsWithANewSpanEachTime() throws {
        let generator = TraceContextGenerator(random: RandomWords(seed: (1, 2, 3, 4)))
        var fields: HTTPFields = [.host: "a", .traceparent: Self.valid]
        fields.append(.tracestate, "rojo=00f067aa0ba902b7")
        fields.append(.tracestate, "congo=t61rcWkgMzE")
        let request = try TestRequest(
            method: "GET", target: "/", headers: ["traceparent": Self.valid, "tracestate": "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"]
        ).parsed
        let first = generator.context(for: request.headerFields)
        let second = generator.context(for: request.headerFields)
        #expect(first.traceparent.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-"))
        #expect(first.traceparent.hasSuffix("-01"))
        #expect(first.parentID == 0x00f0_67aa_0ba9_02b7)
        #expect(first.spanID != second.spanID && first.spanID != 0)
        #expect(first.state == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        #expect(TraceContext.state(fields) == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
    }

    @Test func aNewTraceHasNoParentAndNoFlags() {
        let generator = TraceContextGenerator()
        let one = generator.newTrace()
        let other = generator.newTrace()
        #expect(one.parentID == nil && one.flags == 0 && one.state == nil)
        #expect(one.traceIDHigh | one.traceIDLow != 0 && one.spanID != 0)
        #expect((one.traceIDHigh, one.traceIDLow) != (other.traceIDHigh, other.traceIDLow))
    }

    @Test func aTracestateIsPassedOnOnlyWhenValidAndWithinBounds() {
        let members = (1...32).map { "k\($0)=v" }
        #expect(TraceContext.isValidState(members.joined(separator: ",")))
        #expect(!TraceContext.isValidState((members + ["k33=v"]).joined(separator: ",")), "33 members")
        #expect(TraceContext.isValidState(" rojo=1 ,\t, congo=2"), "blanks and empty members are allowed")
        #expect(TraceContext.isValidState("tenant@system=x, 1tenant@vendor=y"))
        #expect(!TraceContext.isValidState(""), "nothing to pass on")
        #expect(!TraceContext.isValidState("rojo=1,rojo=2"), "a key twice")
        #expect(!TraceContext.isValidState("Rojo=1"), "an uppercase key")
        #expect(!TraceContext.isValidState("rojo"), "no value")
        #expect(!TraceContext.isValidState("rojo=a=b"), "= in a value")
        #expect(!TraceContext.isValidState("rojo=caf\u{E9}"), "not ASCII")
        let long = "a=" + String(repeating: "x", count: 257)
        #expect(!TraceContext.isValidState(long), "a value over 256 characters")
        let wide = (1...3).map { "k\($0)=" + String(repeating: "x", count: 200) }.joined(separator: ",")
        #expect(!TraceContext.isValidState(wide), "over 512 bytes")
    }

    @Test func randomWordsAreTheSameForTheSameSeedAndDifferForAnother() {
        var one = RandomWords(seed: (1, 2, 3, 4))
        var again = RandomWords(seed: (1, 2, 3, 4))
        var other = RandomWords(seed: (5, 6, 7, 8))
        let words = (0..<4).map { _ in one.next() }
        #expect(words == (0..<4).map { _ in again.next() })
        #expect(words != (0..<4).map { _ in other.next() })
        #expect(Set(words).count == 4)
    }
}
