import Testing
@testable import TripsHTTP

/// `Range` as RFC 9110 §14 reads it, for a representation of 1,000 bytes.
@Suite struct ByteRangeRequestTests {
    @Test(arguments: [
        ("bytes=0-499", ByteRangeRequest.part(0...499)),
        ("bytes=500-", .part(500...999)),
        ("bytes=-200", .part(800...999)),
        ("bytes=-5000", .part(0...999)),
        ("bytes=900-5000", .part(900...999)),
        ("bytes=999-999", .part(999...999)),
        ("BYTES=1-2", .part(1...2)),
        ("bytes= 1-2 ", .part(1...2)),
        ("bytes=1000-", .unsatisfiable),
        ("bytes=1000-2000", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
    ])
    func aSingleRangeIsServed(field: String, expected: ByteRangeRequest) {
        #expect(ByteRangeRequest([field], length: 1000) == expected)
    }

    /// Ignored, so the whole representation is sent (§14.2 allows it).
    @Test(arguments: [
        "bytes=0-1,5-6", "bytes=0-0,0-0,0-0", "items=0-1", "bytes=5-1", "bytes=-", "bytes=", "bytes=a-b", "bytes=1-2-3",
        "bytes=99999999999999999999-", "bytes=+1-2", "bytes 0-1", "bytes=1 2-3",
    ])
    func anythingElseIsTheWholeRepresentation(field: String) {
        #expect(ByteRangeRequest([field], length: 1000) == .whole)
    }

    @Test func noFieldOrTwoFieldsIsTheWholeRepresentation() {
        #expect(ByteRangeRequest([], length: 1000) == .whole)
        #expect(ByteRangeRequest(["bytes=0-1", "bytes=2-3"], length: 1000) == .whole)
        #expect(ByteRangeRequest(["bytes=0-1" + String(repeating: " ", count: 300)], length: 1000) == .whole)
    }

    @Test func anEmptyRepresentationHasNoPartToServe() {
        #expect(ByteRangeRequest(["bytes=0-"], length: 0) == .unsatisfiable)
        #expect(ByteRangeRequest(["bytes=-1"], length: 0) == .unsatisfiable)
    }
}
