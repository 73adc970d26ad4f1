import Dispatch
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsServer

/// `Accept-Encoding: gzip` over a real socket: what is compressed (text, JSON, HTML, problem
/// documents and the spec, from 1 KiB), what never is (small answers, the change feed,
/// photos), the tag per coding in both preconditions, and HEAD.
@Suite struct APICompressionTests {
    private static let gzip = ["Accept-Encoding": "gzip"]

    /// A live server whose list has `count` trips (the six samples and more).
    /// What the tests of work off the loop compress there at most: a few KiB, so that 150
    /// trips make a large answer (a server's 256 KiB took 2,000, which a TSan run under load
    /// could not post within its read timeout).
    private static let smallLimit = 8 << 10

    private static func server(trips count: Int = 6, compressedOnTheLoop: Int = TripsAPI.defaultCompressedOnTheLoop)
        async throws -> APIServer
    {
        let api = try await APIServer(mode: .live, compressedOnTheLoop: compressedOnTheLoop)
        guard count > 6 else { return api }
        let drafts = (6..<count).map { index in
            #"{"city":"City \#(index)","country":"Country \#(index % 40)","nights":\#(index % 14 + 1),"price":\#(index * 7 % 5000),"start":"2027-05-01","notes":"Notes of trip \#(index)."}"#
        }
        let created = try await api.json("POST", "/trips", "[" + drafts.joined(separator: ",") + "]")
        #expect(created.status == 201)
        return api
    }

    /// Sends `large` with the server's compression work held back, then `small` on another
    /// connection and reads its answer; answers whether `large` was still unanswered then,
    /// `small`'s status, and `large`'s answer once the work goes on.
    private static func heldBack(_ large: String, while small: String, on api: APIServer) async throws -> (
        waited: Bool, other: Int, packed: TestResponse
    ) {
        let port = api.port
        let work = api.heavyWork
        return try await onOwnThread {
            work.suspend()
            var held = true
            defer { if held { work.resume() } }
            let largeClient = try TestClient(port: port)
            try largeClient.send(large)
            let smallClient = try TestClient(port: port)
            try smallClient.send(small)
            let other = try smallClient.readResponse()
            let waited = !largeClient.hasBytesWaiting()
            work.resume()
            held = false
            return (waited, other.status, try largeClient.readResponse())
        }
    }

    /// The bytes a gzip answer decodes to; fails the test when it is not gzip.
    private static func decoded(_ response: TestResponse) throws -> [UInt8] {
        #expect(response.field("Content-Encoding") == "gzip")
        return try #require(gunzip(response.body))
    }

    @Test(arguments: [("application/json", "json"), ("text/plain", "plain"), ("text/html", "html")])
    func theListOf1000TripsDecodesToExactlyTheIdentityBody(accept: String, subtype: String) async throws {
        let api = try await Self.server(trips: 1000)
        defer { api.stop() }
        let plain = try await api.request("GET", "/trips", headers: ["Accept": accept])
        let packed = try await api.request("GET", "/trips", headers: ["Accept": accept, "Accept-Encoding": "gzip, deflate, br"])
        #expect(plain.status == 200 && packed.status == 200)
        #expect(plain.field("Content-Encoding") == nil)
        #expect(try Self.decoded(packed) == plain.body)
        #expect(packed.body.count * 4 < plain.body.count)
        #expect(packed.field("Content-Length") == String(packed.body.count))
        let tag = try #require(plain.field("ETag"))
        #expect(tag.hasSuffix("-\(subtype)\""))
        #expect(packed.field("ETag") == String(tag.dropLast()) + "-gzip\"")
        for answer in [plain, packed] {
            #expect(answer.field("Vary")?.contains("Accept-Encoding") == true, "\(answer.fields)")
        }
        // Again: from the cache, the same bytes.
        #expect(try await api.request("GET", "/trips", headers: ["Accept": accept, "Accept-Encoding": "gzip"]).body == packed.body)
    }

    /// A large answer no cache keeps (a view of all the trips) is compressed off the event
    /// loop: while the compression work is held back, the loop answers another client, and
    /// the large answer arrives once the work goes on, decoding to the identity body.
    @Test func aLargeViewIsCompressedOffTheEventLoop() async throws {
        let api = try await Self.server(trips: 150, compressedOnTheLoop: Self.smallLimit)
        defer { api.stop() }
        let target = "/trips?q=City"
        let plain = try await api.request("GET", target)
        #expect(plain.body.count > Self.smallLimit)
        let (waited, other, packed) = try await Self.heldBack(
            "GET \(target) HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip\r\n\r\n",
            while: "GET /trips/2 HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip\r\n\r\n", on: api)
        #expect(waited)
        #expect(other == 200)
        #expect(packed.status == 200)
        #expect(try Self.decoded(packed) == plain.body)
    }

    /// A change that answers with a large list (a reorder) is compressed off
    /// the store's writer: while the compression work is held back, another change is made
    /// and answered, and the large answer arrives once the work goes on.
    @Test func aChangesLargeAnswerIsCompressedOffTheWriter() async throws {
        let api = try await Self.server(trips: 150, compressedOnTheLoop: Self.smallLimit)
        defer { api.stop() }
        let body = #"{"sources":[2],"destination":"end"}"#
        let (waited, other, packed) = try await Self.heldBack(
            "PATCH /trips HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)",
            while: "PUT /favorites/3 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n", on: api)
        #expect(waited)
        #expect((200..<300).contains(other))
        #expect(packed.status == 200)
        #expect(try Self.decoded(packed).count > Self.smallLimit)
    }

    @Test func eachTagRevalidatesAndA304NamesTheCodingTheClientHolds() async throws {
        let api = try await Self.server(trips: 20)
        defer { api.stop() }
        let packed = try await api.request("GET", "/trips", headers: Self.gzip)
        let gzipTag = try #require(packed.field("ETag"))
        let plainTag = try #require(try await api.request("GET", "/trips").field("ETag"))
        #expect(gzipTag != plainTag)
        let cases: [(sent: String, headers: [String: String], answered: String)] = [
            (gzipTag, Self.gzip, gzipTag), (plainTag, Self.gzip, plainTag), (plainTag, [:], plainTag), (gzipTag, [:], plainTag),
            ("W/" + gzipTag, Self.gzip, gzipTag), (gzipTag, ["Accept-Encoding": "gzip;q=0"], plainTag),
        ]
        for (sent, headers, answered) in cases {
            let response = try await api.request("GET", "/trips", headers: headers.merging(["If-None-Match": sent]) { $1 })
            #expect(response.status == 304, "\(sent) \(headers)")
            #expect(response.field("ETag") == answered, "\(sent) \(headers)")
            #expect(response.field("Vary") == "Accept, Accept-Encoding")
        }
        _ = try await api.request("PUT", "/favorites/2")
        #expect(try await api.request("GET", "/trips", headers: Self.gzip.merging(["If-None-Match": gzipTag]) { $1 }).status == 200)
    }

    @Test func ifMatchTakesTheTagAGzipReadReturned() async throws {
        let api = try await Self.server(trips: 20)
        defer { api.stop() }
        let reorder = #"{"sources":[2],"destination":"end"}"#
        let listTag = try #require(try await api.request("GET", "/trips", headers: Self.gzip).field("ETag"))
        #expect(listTag.hasSuffix("-gzip\""))
        #expect(try await api.json("PATCH", "/trips", reorder, headers: ["If-Match": listTag]).status == 200)
        #expect(try await api.json("PATCH", "/trips", reorder, headers: ["If-Match": listTag]).status == 412)

        // A trip over 1 KiB is compressed too, and its gzip tag is good for a PATCH.
        let notes = String(repeating: "Granville Island by ferry. ", count: 60)
        let patch = ["Content-Type": "application/merge-patch+json"]
        #expect(try await api.request("PATCH", "/trips/2", headers: patch, body: #"{"notes":"\#(notes)"}"#).status == 200)
        let trip = try await api.request("GET", "/trips/2", headers: Self.gzip)
        let tripTag = try #require(trip.field("ETag"))
        #expect(tripTag.hasSuffix("-json-gzip\"") && trip.field("Content-Encoding") == "gzip")
        let ifMatch = patch.merging(["If-Match": tripTag]) { $1 }
        let changed = try await api.request("PATCH", "/trips/2", headers: ifMatch, body: #"{"nights":5}"#)
        #expect(changed.status == 200, "\(changed.text)")
        let stale = try await api.request("PATCH", "/trips/2", headers: ifMatch, body: #"{"nights":6}"#)
        #expect(stale.status == 412)
    }

    @Test(arguments: [["Accept-Encoding": "gzip;q=0"], ["Accept-Encoding": "identity"], [:], ["Accept-Encoding": "br, zstd"]])
    func withoutGzipAcceptedTheAnswerIsIdentityAndStillVaries(headers: [String: String]) async throws {
        let api = try await Self.server(trips: 20)
        defer { api.stop() }
        let response = try await api.request("GET", "/trips", headers: headers)
        #expect(response.status == 200 && response.field("Content-Encoding") == nil)
        #expect(response.field("Vary") == "Accept, Accept-Encoding")
        #expect(response.field("ETag")?.hasSuffix("-gzip\"") == false)
        #expect(try response.ids.count == 20)
    }

    @Test func smallAnswersAndPhotosAreNeverCompressed() async throws {
        let api = try await Self.server()
        defer { api.stop() }
        let trip = try await api.request("GET", "/trips/2", headers: Self.gzip)
        #expect(trip.status == 200 && trip.body.count < 1024 && trip.field("Content-Encoding") == nil)
        #expect(trip.field("Vary") == "Accept, Accept-Encoding")
        #expect(trip.field("ETag")?.hasSuffix("-json\"") == true)
        guard case .object(let photo)? = try trip.member("photo"), case .string(let url)? = photo["url"] else {
            throw TestFailure("trip 2 has no photo")
        }
        let image = try await api.request("GET", url, headers: Self.gzip)
        #expect(image.status == 200 && image.body.count > 1024)
        #expect(image.field("Content-Encoding") == nil && image.field("Vary") == nil)
        let icon = try await api.request("GET", "/assets/trips.svg", headers: Self.gzip)
        #expect(icon.status == 200 && icon.field("Content-Encoding") == nil)
    }

    @Test func theChangeFeedStreamIsNeverCompressed() async throws {
        let api = try await Self.server()
        defer { api.stop() }
        let head = try await onOwnThread {
            let client = try TestClient(port: api.port)
            try client.send("GET /trips/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip\r\n\r\n")
            return try client.readUntil("retry: 2000\n\n")
        }
        #expect(head.contains("Content-Type: text/event-stream"))
        #expect(!head.contains("Content-Encoding") && !head.contains("Accept-Encoding"))
    }

    @Test func headSaysWhatGetWouldAndARangeGetsTheWholeListCompressed() async throws {
        let api = try await Self.server(trips: 20)
        defer { api.stop() }
        let get = try await api.request("GET", "/trips", headers: Self.gzip)
        let head = try await api.request("HEAD", "/trips", headers: Self.gzip)
        #expect(head.status == 200 && head.body.isEmpty)
        for name in ["Content-Encoding", "Content-Length", "ETag", "Vary", "Content-Type"] {
            #expect(head.field(name) == get.field(name), "\(name)")
        }
        // Only photos take Range: a range of a list is answered with the whole list.
        let range = try await api.request("GET", "/trips", headers: Self.gzip.merging(["Range": "bytes=0-9"]) { $1 })
        #expect(range.status == 200 && range.body == get.body)
    }

    @Test func problemDocumentsTheSpecAndTheAssetsAreCompressedFrom1KiB() async throws {
        let api = try await Self.server()
        defer { api.stop() }
        let drafts = Array(repeating: #"{"city":"","country":"","nights":0,"price":1,"start":"2027-05-01"}"#, count: 20)
        let body = "[" + drafts.joined(separator: ",") + "]"
        // One request id for both, which the documents name as their instance.
        let id = ["X-Request-ID": "compressed-1"]
        let plain = try await api.json("POST", "/trips", body, headers: id)
        let packed = try await api.json("POST", "/trips", body, headers: Self.gzip.merging(id) { $1 })
        #expect(plain.status == 422 && packed.status == 422 && plain.body.count > 1024)
        #expect(try Self.decoded(packed) == plain.body)
        #expect(packed.field("Content-Type") == "application/problem+json")
        #expect(packed.field("Vary") == "Accept, Accept-Encoding")
        #expect(try await api.request("GET", "/trips/99", headers: Self.gzip).field("Content-Encoding") == nil)  // a short one

        let spec = try await api.request("GET", "/openapi.yaml")
        let packedSpec = try await api.request("GET", "/openapi.yaml", headers: Self.gzip)
        #expect(try Self.decoded(packedSpec) == spec.body)
        #expect(packedSpec.field("Vary") == "Accept, Accept-Encoding" && spec.field("Vary") == "Accept, Accept-Encoding")

        for path in ["/assets/trips.js", "/assets/trips.css"] {
            let plain = try await api.request("GET", path)
            let packed = try await api.request("GET", path, headers: Self.gzip)
            #expect(try Self.decoded(packed) == plain.body, "\(path)")
            #expect(packed.field("Vary") == "Accept-Encoding" && plain.field("Vary") == "Accept-Encoding", "\(path)")
            let tag = try #require(packed.field("ETag"))
            let revalidated = try await api.request("GET", path, headers: Self.gzip.merging(["If-None-Match": tag]) { $1 })
            #expect(revalidated.status == 304 && revalidated.field("ETag") == tag, "\(path)")
        }
    }
}
