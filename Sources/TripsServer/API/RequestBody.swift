import TripsDomain
import TripsFormats
import TripsHTTP

/// Reads a request body in one of the forms an endpoint takes, chosen by `Content-Type`,
/// as a drop destination takes only the types it lists.
enum RequestBody {
    /// The one of `accepted` whose media type the request's `Content-Type` names (UTF-8 only);
    /// 415 naming what would work otherwise, and for content in a coding (`refuseContentCoding`).
    static func choose<Representation>(
        _ accepted: [Representation], by mediaType: (Representation) -> MediaType, for request: HTTPRequest
    ) throws(APIError) -> Representation {
        try refuseContentCoding(request)
        try request.refuseRepeated(.contentType)
        if let value = request.headerFields[.contentType] {
            // Most requests name a type bare and in lowercase, as the list spells it: no parsing.
            if let chosen = accepted.first(where: { mediaType($0).isSpelled(exactlyBy: value) }) { return chosen }
            if let range = AcceptField.parseRange(Substring(value)), range.type != "*", range.subtype != "*",
                let chosen = accepted.first(where: { range.matches(mediaType($0)) })
            {
                return chosen
            }
        }
        let names = accepted.map { mediaType($0).description }.joined(separator: ", ")
        let sent = request.headerFields[.contentType].map { "\($0) is" } ?? "a body without Content-Type is"
        // Text and JSON are read as UTF-8; an image is bytes.
        let encoding = accepted.allSatisfy { mediaType($0).type == "image" } ? "" : " (UTF-8)"
        var error = APIError(.unsupportedMediaType, "\(sent) not accepted here; send \(names)\(encoding).")
        error.available = accepted.map { mediaType($0).description }
        if request.method == .post { error.headerFields[.acceptPost] = names }
        if request.method == .patch { error.headerFields[.acceptPatch] = names }
        throw error
    }

    /// 415 with `Accept-Encoding: identity` when `Content-Encoding` names a coding other than
    /// identity (RFC 9110 §8.4): no body is decoded here, and compressed bytes read as they are
    /// would be refused as text that is not UTF-8 at best, stored as a trip at worst.
    static func refuseContentCoding(_ request: HTTPRequest) throws(APIError) {
        guard request.headerFields.contains(.contentEncoding) else { return }
        let codings = request.headerFields.values(for: .contentEncoding).lazy.flatMap { splitList($0) }
        guard let coding = codings.first(where: { $0.lowercased() != "identity" }) else { return }
        var error = APIError(.unsupportedMediaType, "Content-Encoding \(coding) is not read here; send the content without a coding.")
        error.headerFields[.acceptEncoding] = "identity"
        throw error
    }

    /// The body read through the value's import representation that `Content-Type` names, in
    /// the language `Content-Language` names.
    static func decode<Value: Importable>(_ request: HTTPRequest, as type: Value.Type) throws(APIError) -> Value {
        let representation = try choose(Value.importRepresentations, by: { $0.mediaType }, for: request)
        do {
            return try representation.decode(request.body, language(of: request))
        } catch {
            throw APIError(error)
        }
    }

    /// The first language of `Content-Language` this server reads (by RFC 4647 lookup: `fr-CA`
    /// is French); nil without one, and a text body is read in whichever language it is in.
    static func language(of request: HTTPRequest) -> Language? {
        request.headerFields.values(for: .contentLanguage).lazy.flatMap { splitList($0) }.compactMap { Language(lookingUp: $0) }.first
    }

    /// The body as a JSON document, for a `Content-Type` among `accepted`.
    static func json(_ request: HTTPRequest, accepting accepted: [MediaType]) throws(APIError) -> JSONValue {
        _ = try choose(accepted, by: { $0 }, for: request)
        do {
            return try JSONValue(parsing: request.body)
        } catch {
            throw APIError(.malformedJSON(error))
        }
    }
}
