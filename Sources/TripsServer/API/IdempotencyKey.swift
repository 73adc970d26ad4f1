import Glibc
import TripsDomain
import TripsHTTP
import TripsPlatform
import TripsStore

/// `Idempotency-Key` (the IETF httpapi draft, as Stripe uses it): a retry of a change with
/// the same key and the same request gets the first answer again, without a second change.
enum IdempotencyKey {
    /// The answer fields kept with a change and sent again to a retry.
    static let keptFields: [HTTPField.Name] = [.contentType, .location, .etag, .tripsRevision, .vary]

    /// The request's key, in the scope of `tokenName` (the token it carries; nil without
    /// tokens), with what the store needs to keep its answer, or nil without a key; 400 for
    /// a key that is not 1 to 255 visible characters.
    static func request(
        _ request: HTTPRequest, tokenName: String?, answer: @escaping @Sendable (Mutation) -> StoredAnswer?
    ) throws(APIError) -> IdempotencyRequest? {
        guard let key = request.headerFields[.idempotencyKey] else { return nil }
        try request.refuseRepeated(.idempotencyKey)
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIError(.badRequest, "Idempotency-Key: must be 1 to 255 visible characters")
        }
        return IdempotencyRequest(
            key: IdempotencyLedger.Key(scope: tokenName ?? "", key: key), fingerprint: fingerprint(request), now: Int64(Glibc.time(nil)),
            answer: answer)
    }

    /// What makes two requests the same: method, target, body type and body, each after its
    /// length, so that no part can pass for another (SHA-256, in hex: a hash of 64 bits, as
    /// FNV-1a was, can be made to collide on purpose).
    static func fingerprint(_ request: HTTPRequest) -> String {
        var hash = SHA256()
        func mix(_ bytes: [UInt8]) {
            withUnsafeBytes(of: UInt64(bytes.count).bigEndian) { hash.update($0) }
            bytes.withUnsafeBytes { hash.update($0) }
        }
        mix(Array(request.method.rawValue.utf8))
        mix(Array(request.target.utf8))
        mix(Array((request.headerFields[.contentType] ?? "").utf8))
        mix(request.body)
        return Hexadecimal.encode(hash.finalize())
    }
}

extension StoredAnswer {
    /// What of a response is kept: status, the fields retries need, and the content (which
    /// `kept(for:)` leaves out when it is large).
    init(_ response: HTTPResponse) {
        var fields: [String: String] = [:]
        for name in IdempotencyKey.keptFields { if let value = response.headerFields[name] { fields[name.rawName] = value } }
        self.init(status: response.status.code, fields: fields, content: .body(response.body))
    }

    /// The kept status, as the server names it: only a change's own answers are kept (200,
    /// 201 or 204).
    var httpStatus: HTTPStatus {
        [HTTPStatus.ok, .created, .noContent].first { $0.code == status } ?? HTTPStatus(code: status, reasonPhrase: "OK")
    }
}

extension HTTPResponse {
    /// A kept answer, sent again as it was.
    init(_ answer: StoredAnswer, body: [UInt8]) {
        var fields: HTTPFields = [:]
        for (name, value) in answer.fields.sorted(by: { $0.key < $1.key }) {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        self.init(status: answer.httpStatus, headerFields: fields, body: body)
    }

    /// An answer made again from the list as it is now, for a retry whose first answer was
    /// too large to keep: with the first answer's status, `ETag`, `Trips-Revision` and
    /// `Location`, which say what the change made.
    mutating func restamp(as answer: StoredAnswer) {
        status = answer.httpStatus
        for name in [HTTPField.Name.etag, .tripsRevision, .location] {
            headerFields[name] = answer.fields[name.rawName]
        }
    }
}
