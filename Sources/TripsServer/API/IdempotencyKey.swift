import Glibc
import TripsDomain

/// `Idempotency-Key` (the IETF httpapi draft, as Stripe uses it): a retry of a change with
/// the same key and the same request gets the first answer again, without a second change.
enum IdempotencyKey {
    /// The answer fields kept with a change and sent again to a retry.
    static let keptFields: [HTTPField.Name] = [.contentType, .location, .etag, .tripsRevision, .vary]

    /// The request's key with what the store needs to keep its answer, or nil without a key;
    /// 400 for a key that is not 1 to 255 visible characters.
    static func request(
        _ request: HTTPRequest, answer: @escaping @Sendable (Mutation) -> StoredAnswer?
    ) throws(APIError) -> IdempotencyRequest? {
        guard let key = request.headerFields[.idempotencyKey] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIError(.badRequest, "Idempotency-Key: must be 1 to 255 visible characters")
        }
        return IdempotencyRequest(key: key, fingerprint: fingerprint(request), now: Int64(Glibc.time(nil)), answer: answer)
    }

    /// What makes two requests the same: method, target, body type and body (FNV-1a, 64 bits).
    static func fingerprint(_ request: HTTPRequest) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
            hash ^= 0xff  // a separator that no part can forge
            hash &*= 0x0000_0100_0000_01b3
        }
        mix(request.method.rawValue.utf8)
        mix(request.target.utf8)
        mix((request.headerFields[.contentType] ?? "").utf8)
        mix(request.body)
        return String(hash, radix: 16) + "-" + String(request.body.count)
    }
}

extension StoredAnswer {
    /// What of a response is kept: status, the fields retries need, and the content.
    init(_ response: HTTPResponse) {
        var fields: [String: String] = [:]
        for name in IdempotencyKey.keptFields { if let value = response.headerFields[name] { fields[name.rawName] = value } }
        self.init(status: response.status.code, fields: fields, body: response.body)
    }
}

extension HTTPResponse {
    /// A kept answer, sent again.
    init(_ answer: StoredAnswer) {
        var fields: HTTPFields = [:]
        for (name, value) in answer.fields.sorted(by: { $0.key < $1.key }) {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        // Only a change's own answers are kept: 200, 201 or 204.
        let status: HTTPStatus =
            [HTTPStatus.ok, .created, .noContent].first { $0.code == answer.status } ?? HTTPStatus(code: answer.status, reasonPhrase: "OK")
        self.init(status: status, headerFields: fields, body: answer.body)
    }
}
