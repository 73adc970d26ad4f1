import Dispatch
import TripsHTTP

/// Answers in the content coding the client prefers (`ResponseCompression`): every answer
/// passes through `encode` once, at the end of `handle`; the representation cache keeps its
/// answers encoded per coding, so a cached read is not compressed again.
extension TripsAPI {
    /// Encodes what a reply answers, now or later, for the request's `Accept-Encoding`. A
    /// stream goes as it is: its head is the change feed's, never compressed.
    ///
    /// gzip costs about 35 instructions a byte: an answer of more than `compressedOnTheLoop`
    /// bytes (a large view, whose compressed forms no cache keeps, or a change that answers with a large list)
    /// is compressed on `heavyWork`, so neither the other connections of its event loop
    /// nor the store's writer, which a change's answer is made on, wait for it.
    func encode(_ reply: inout HTTPReply, for request: HTTPRequest) {
        // A cache's answer, encoded already: the hot path, looked at before anything is copied.
        if case .now(let response) = reply, response.isPrepared { return }
        let compression = cache.compression
        let work = heavyWork
        let limit = compressedOnTheLoop
        switch reply {
        case .now(let response):
            let coding = ResponseCompression.coding(for: request)
            guard Self.isHeavy(response, coding, over: limit) else {
                reply = .now(compression.encode(response, as: coding))
                return
            }
            reply = .later { responder in
                work.async { responder.respond(compression.encode(response, as: coding)) }
            }
        case .later(let start):
            let coding = ResponseCompression.coding(for: request)
            reply = .later { responder in
                start(
                    responder.mapping(offloading: { Self.isHeavy($0, coding, over: limit) }, to: work) { response in
                        response.isPrepared ? response : compression.encode(response, as: coding)
                    })
            }
        case .stream:
            break
        }
    }

    /// Whether compressing `response` for `coding` is too long for the thread that answers:
    /// more than `limit` bytes.
    private static func isHeavy(_ response: HTTPResponse, _ coding: ContentCoding, over limit: Int) -> Bool {
        coding != .identity && !response.isPrepared && response.body.count > limit
    }

    /// The largest answer a server compresses on its event loop: 256 KiB, about 9 million
    /// instructions, a few milliseconds.
    static let defaultCompressedOnTheLoop = 256 << 10

    /// 304 when `If-None-Match` names `current`, in either coding; nil to go on with the full
    /// answer. `fields` are those the 304 repeats besides `ETag`. Before that, 412 when
    /// `If-Match` names no current representation: RFC 9110 §13.1.1 has a server evaluate it
    /// for every method, GET included (a client that reads only the version it saw).
    ///
    /// A 304 carries the ETag a 200 would (RFC 9110 §15.4.5), which it cannot know without
    /// making the content (a small one is never compressed): it names the coding the client's
    /// own tag named when the client still takes that coding, identity otherwise. An unchanged
    /// representation compressed before compresses again, so that is the 200's tag.
    func notModified(_ request: HTTPRequest, current: EntityTag, compressible: Bool, fields: HTTPFields) throws(APIError)
        -> HTTPResponse?
    {
        try Self.checkIfMatch(request, current: current)
        guard let condition = EntityTagCondition.parse(request.headerFields.values(for: .ifNoneMatch)),
            let named = condition.weakMatch(current)
        else { return nil }
        var fields = fields
        let coding = compressible && named.isCoded ? ResponseCompression.coding(for: request) : .identity
        fields[.etag] = current.coded(coding).headerValue
        if compressible { ResponseCompression.addVary(to: &fields) }
        return HTTPResponse(status: .notModified, headerFields: fields)
    }

    /// Throws 412 when the request's `If-Match` names no representation `current` is.
    static func checkIfMatch(_ request: HTTPRequest, current: EntityTag) throws(APIError) {
        if let condition = EntityTagCondition.parse(request.headerFields.values(for: .ifMatch)), !condition.matchesStrongly([current]) {
            throw .preconditionFailed
        }
    }
}
