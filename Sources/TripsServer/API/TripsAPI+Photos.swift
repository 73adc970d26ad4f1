import Dispatch
import TripsDomain
import TripsFormats
import TripsHTTP
import TripsStore

/// A trip's photo: `PUT`, `DELETE` and `GET /trips/{id}/photo`, and the bytes at
/// `GET /photos/<sha256>.<ext>`.
extension TripsAPI {
    /// What `PUT /trips/{id}/photo` reads: the formats every browser shows.
    static let photoTypes = ImageFormat.allCases.map(\.mediaType)

    /// `PUT /trips/{id}/photo`: the body is the image. Checked, not trusted: its signature must
    /// be the declared type's (415), its header must give its size (422), at most
    /// `InspectedImage.defaultMaxSide` on a side (422); its metadata is removed before it is
    /// kept. A change of the trip like any other: `If-Match`, `Idempotency-Key`, the feed.
    ///
    /// Reading and hashing megabytes takes milliseconds, which the event loop's other
    /// connections should not wait for: that part runs on `photoWork`, then the change is
    /// submitted from there as any other.
    func putPhoto(_ id: Trip.ID, _ request: HTTPRequest) throws(APIError) -> HTTPReply {
        let declared = try RequestBody.choose(ImageFormat.allCases, by: \.mediaType, for: request)
        _ = try negotiate(Trip.self, for: request)
        return .later { [self] responder in
            Self.photoWork.async { [self] in
                let accept = request.headerFields.values(for: .accept)
                let reply: HTTPReply
                do throws(APIError) {
                    let photo = try Self.inspect(request.body, declared: declared)
                    reply = try changeTrip(id, request, photo: photo) { _ in .setPhoto(id, photo.photo) }
                } catch {
                    reply = .now(error.response(accept: accept, requestID: responder.requestID))
                }
                switch reply {
                case .now(let response): responder.respond(response)
                case .later(let start): start(responder)
                case .stream:  // a change never streams
                    responder.respond(APIError.inconsistent.response(accept: accept, requestID: responder.requestID))
                }
            }
        }
    }

    /// Where photos are read and hashed, off the event loops.
    private static let photoWork = DispatchQueue(label: "trips-photos", qos: .userInitiated, attributes: .concurrent)

    /// The photo an upload is, checked and without its metadata: 415 when the file is not the
    /// type it was declared as, 422 when it cannot be read or is too large.
    private static func inspect(_ body: [UInt8], declared: ImageFormat) throws(APIError) -> PhotoBytes {
        let image: InspectedImage
        do {
            image = try InspectedImage(inspecting: body, declared: declared)
        } catch {
            if case .formatMismatch = error { throw APIError(.unsupportedMediaType, error.description) }
            throw APIError(.unprocessableContent, error.description, type: .invalidPhoto)
        }
        guard let photo = PhotoBytes(format: image.format, width: image.width, height: image.height, bytes: image.bytes) else {
            throw APIError(.unprocessableContent, "The image is empty.", type: .invalidPhoto)
        }
        return photo
    }

    /// `DELETE /trips/{id}/photo`: the trip has no photo afterwards (200 with the trip, as a
    /// `PUT` answers; nothing changes when it had none).
    func deletePhoto(_ id: Trip.ID, _ request: HTTPRequest) throws(APIError) -> HTTPReply {
        try changeTrip(id, request) { _ in .setPhoto(id, nil) }
    }

    /// `GET /trips/{id}/photo`: 303 to the photo's own URL, which never changes and can be
    /// cached for good; 404 when the trip has no photo.
    func showPhoto(_ id: Trip.ID, _ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard let trip = store.read({ list in list[id] }) else { throw .notFound(request.path) }
        guard let photo = trip.photo else { throw APIError(.notFound, "Trip \(id) has no photo; PUT one to /trips/\(id)/photo.") }
        return HTTPResponse(status: .seeOther, headerFields: [.location: photo.url])
    }

    /// How long a photo may be kept: its URL names its bytes, so for good (a year, RFC 9111's
    /// customary "never expires"), and `immutable` spares the revalidation on reload.
    static let photoCacheControl = "public, max-age=31536000, immutable"

    /// `GET /photos/<sha256>.<ext>`: the bytes, with a strong ETag (the digest), 304, and one
    /// byte range (206, 416). `nosniff` and a policy that runs nothing: an image served from
    /// this origin can never become a page.
    func servePhoto(_ name: PhotoName, _ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        _ = try choosePosition(for: request) { [name.format.mediaType] }
        // The list says whether a trip still refers to the photo: a cleared photo is gone at
        // once, though its bytes may stay cached.
        let digest = name.digest
        guard let photo = store.read({ list in list.photos[digest] }), photo.format == name.format else {
            throw .notFound(request.path)
        }
        let etag = EntityTag(digest)
        let whole = try cache.photo(digest) { () throws(APIError) in
            let stored: PhotoBytes?
            do throws(StorageError) {
                stored = try store.photo(digest: digest)
            } catch {
                throw APIError(.serviceUnavailable, "The photo cannot be read now: \(Self.describe(error)).", type: .storageUnavailable)
            }
            return stored.map { stored in
                HTTPResponse(
                    status: .ok,
                    headerFields: [
                        .etag: etag.headerValue, .cacheControl: Self.photoCacheControl, .contentSecurityPolicy: "default-src 'none'",
                        .contentType: photo.format.mediaType.contentTypeValue, .acceptRanges: "bytes",
                    ], body: stored.bytes)
            }
        }
        guard var response = whole else { throw .notFound(request.path) }
        try Self.checkIfMatch(request, current: etag)
        if let condition = EntityTagCondition.parse(request.headerFields.values(for: .ifNoneMatch)), condition.matchesWeakly(etag) {
            var fields = response.headerFields
            fields[.contentType] = nil
            fields[.acceptRanges] = nil
            return HTTPResponse(status: .notModified, headerFields: fields)
        }
        let length = response.body.count
        switch Self.range(of: request, etag: etag, length: length) {
        case .whole:
            return response
        case .part(let range):
            response.status = .partialContent
            response.headerFields[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
            response.body = Array(response.body[range])
            return response
        case .unsatisfiable:
            var error = APIError(.rangeNotSatisfiable, "The photo has \(length) bytes; ask for a range that starts before its end.")
            error.headerFields[.contentRange] = "bytes */\(length)"
            throw error
        }
    }

    /// The range a `GET` asks of a photo, honoured only when `If-Range` (if sent) names the
    /// photo's tag: a range of other bytes must not be stitched onto these (RFC 9110 §13.1.5).
    /// A date in `If-Range` names no tag, and photos send no `Last-Modified`: the whole photo.
    private static func range(of request: HTTPRequest, etag: EntityTag, length: Int) -> ByteRangeRequest {
        guard request.method == .get else { return .whole }
        if let ifRange = request.headerFields[.ifRange], ifRange != etag.headerValue { return .whole }
        return ByteRangeRequest(request.headerFields.values(for: .range), length: length)
    }
}
