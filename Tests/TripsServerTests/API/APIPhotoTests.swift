import Foundation
import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// `PUT`, `DELETE` and `GET /trips/{id}/photo`, and `GET /photos/<sha256>.<ext>`.
@Suite struct APIPhotoTests {
    /// A small phone-style JPEG with Exif GPS, an XMP packet and a comment (64 x 48).
    static let phoneJPEG = try! PhotoFixture.bytes("phone-gps.jpg")
    static let plainPNG = try! PhotoFixture.bytes("plain.png")

    private func putPhoto(
        _ api: APIServer, _ bytes: [UInt8], type: String = "image/jpeg", trip: Int = 2, headers: [String: String] = [:]
    ) async throws -> TestResponse {
        try await api.request("PUT", "/trips/\(trip)/photo", headers: headers.merging(["Content-Type": type]) { $1 }, binaryBody: bytes)
    }

    private static func photo(of response: TestResponse) throws -> [String: JSONValue] {
        guard case .object(let members)? = try response.member("photo") else { throw TestFailure("no photo in \(response.text)") }
        return members
    }

    private static func photoURL(of response: TestResponse) throws -> String {
        guard case .string(let url)? = try photo(of: response)["url"] else { throw TestFailure("no photo url in \(response.text)") }
        return url
    }

    @Test(arguments: TestStore.all) func aPhotoIsAChangeOfItsTripAndServedWithoutItsMetadata(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let before = try await api.request("GET", "/trips/2")
        let put = try await putPhoto(api, Self.phoneJPEG, headers: ["If-Match": before.field("ETag") ?? ""])
        #expect(put.status == 200)
        let photo = try Self.photo(of: put)
        let url = try Self.photoURL(of: put)
        #expect(photo["type"] == .string("image/jpeg"))
        #expect(photo["width"] == .number("64") && photo["height"] == .number("48"))
        #expect(put.field("ETag") != before.field("ETag"))
        #expect(Int(put.field("Trips-Revision") ?? "") == Int(before.field("Trips-Revision") ?? "")! + 1)

        let served = try await api.request("GET", url)
        #expect(served.status == 200)
        #expect(served.field("Content-Type") == "image/jpeg")
        #expect(served.field("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(served.field("Content-Security-Policy") == "default-src 'none'")
        #expect(served.field("X-Content-Type-Options") == "nosniff")
        #expect(photo["bytes"] == .number(String(served.body.count)))
        #expect(served.body.count < Self.phoneJPEG.count)
        #expect(!served.body.contains(subsequence: Array("Exif".utf8)) && !served.body.contains(subsequence: Array("GPS".utf8)))
        let digest = String(url.dropFirst("/photos/".count).prefix(64))
        #expect(served.field("ETag") == "\"\(digest)\"")
        #expect(try await api.request("GET", url, headers: ["If-None-Match": "\"\(digest)\""]).status == 304)

        let redirect = try await api.request("GET", "/trips/2/photo")
        #expect(redirect.status == 303 && redirect.field("Location") == url)
    }

    @Test func oneByteRangeIsServedAndARangePastTheEndIs416() async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let url = try Self.photoURL(of: await putPhoto(api, Self.plainPNG, type: "image/png"))
        let whole = try await api.request("GET", url)
        let part = try await api.request("GET", url, headers: ["Range": "bytes=8-15"])
        #expect(part.status == 206)
        #expect(part.body == Array(whole.body[8...15]))
        #expect(part.field("Content-Range") == "bytes 8-15/\(whole.body.count)")
        let tail = try await api.request("GET", url, headers: ["Range": "bytes=-4"])
        #expect(tail.body == Array(whole.body.suffix(4)))
        let past = try await api.request("GET", url, headers: ["Range": "bytes=\(whole.body.count)-"])
        #expect(past.status == 416)
        #expect(past.field("Content-Range") == "bytes */\(whole.body.count)")
        let stale = try await api.request("GET", url, headers: ["Range": "bytes=0-3", "If-Range": "\"other\""])
        #expect(stale.status == 200 && stale.body == whole.body)
        let current = try await api.request("GET", url, headers: ["Range": "bytes=0-3", "If-Range": whole.field("ETag") ?? ""])
        #expect(current.status == 206 && current.body.count == 4)
    }

    @Test(arguments: TestStore.all) func deletingThePhotoClearsIt(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let url = try Self.photoURL(of: await putPhoto(api, Self.phoneJPEG))
        #expect(try await api.request("GET", url).status == 200)  // now its bytes are cached too
        let deleted = try await api.request("DELETE", "/trips/2/photo")
        #expect(deleted.status == 200)
        #expect(try deleted.member("photo") == .null)
        #expect(try await api.request("GET", "/trips/2/photo").status == 404)
        #expect(try await api.request("GET", url).status == 404)
    }

    @Test func theBytesAreCheckedNotTrusted() async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let samplePhoto = try await api.request("GET", "/trips/2").member("photo")
        let mismatch = try await putPhoto(api, Self.phoneJPEG, type: "image/png")
        #expect(mismatch.status == 415)
        #expect(mismatch.text.contains("image/png") && mismatch.text.contains("image/jpeg"))
        let text = try await putPhoto(api, Self.phoneJPEG, type: "text/plain")
        #expect(text.status == 415)
        #expect(text.text.contains("send image/jpeg, image/png, image/webp."))
        let truncated = try await putPhoto(api, Array(Self.phoneJPEG.prefix(300)))
        #expect(truncated.status == 422)
        #expect(try await putPhoto(api, Self.phoneJPEG, trip: 42).status == 404)
        let stale = try await putPhoto(api, Self.phoneJPEG, headers: ["If-Match": "\"stale\""])
        #expect(stale.status == 412)
        #expect(try await api.request("GET", "/trips/2").member("photo") == samplePhoto)
    }

    @Test(arguments: [
        "/photos/x.jpg", "/photos/\(String(repeating: "a", count: 64)).gif", "/photos/\(String(repeating: "A", count: 64)).jpg",
        "/photos/\(String(repeating: "a", count: 64)).jpg", "/photos/\(String(repeating: "a", count: 63)).jpg",
    ])
    func aNameThatIsNoStoredPhotoIs404(path: String) async throws {
        let api = try await APIServer()
        defer { api.stop() }
        #expect(try await api.request("GET", path).status == 404)
    }

    @Test func theSameBytesUnderAnotherExtensionAreNoPhoto() async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let url = try Self.photoURL(of: await putPhoto(api, Self.phoneJPEG))
        #expect(try await api.request("GET", url.replacingOccurrences(of: ".jpg", with: ".png")).status == 404)
    }

    @Test func aRetryWithTheSameKeyChangesNothingTwice() async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let first = try await putPhoto(api, Self.phoneJPEG, headers: ["Idempotency-Key": "photo-1"])
        let retry = try await putPhoto(api, Self.phoneJPEG, headers: ["Idempotency-Key": "photo-1"])
        #expect(first.status == 200 && retry.status == 200)
        #expect(first.field("Trips-Revision") == retry.field("Trips-Revision"))
        #expect(first.body == retry.body)
    }

    /// Decided from `Content-Length` as the head arrives: the client is told before it sends
    /// a byte of the photo, and the connection is closed.
    @Test func aPhotoOverTheLimitIs413BeforeItsBody() async throws {
        let api = try await APIServer(on: .memory, mode: .live, maxPhotoBytes: 1000)
        defer { api.stop() }
        let port = api.port
        let response = try await onOwnThread {
            let client = try TestClient(port: port)
            try client.send("PUT /trips/2/photo HTTP/1.1\r\nHost: localhost\r\nContent-Type: image/jpeg\r\nContent-Length: 1001\r\n\r\n")
            return try client.readResponse()
        }
        #expect(response.status == 413)
        let small = try await putPhoto(api, Array(Self.phoneJPEG.prefix(1000)))
        #expect(small.status == 422)  // taken whole, then refused as a cut-off JPEG
        let json = try await api.request(
            "POST", "/trips", headers: ["Content-Type": "application/json"], body: "[" + String(repeating: " ", count: 2000) + "]")
        #expect(json.status != 413)  // the photo limit is the photo route's alone
    }
}

/// The image files the image readers' tests use (`Tests/TripsFormatsTests/Fixtures`).
enum PhotoFixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../TripsFormatsTests/Fixtures/\(name)").standardized
        guard let data = FileManager.default.contents(atPath: url.path) else { throw TestFailure("no fixture at \(url.path)") }
        return Array(data)
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { self[$0..<($0 + subsequence.count)].elementsEqual(subsequence) }
    }
}
