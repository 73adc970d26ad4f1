import TripsFormats

/// An error answer: a status, its kind (`type`), a sentence that says what was wrong, and
/// extension members that help a client act on it.
///
/// Every error response, from the parser, a timeout or the API, is written here and nowhere
/// else: as a problem document (RFC 9457, `application/problem+json`), or as one line of
/// text for clients that prefer `text/plain`. The form is negotiated as a resource's
/// representation is, JSON first on ties, and the problem document counts as JSON.
///
///     ProblemDetails(.notFound, "There is nothing at /trips/42.", type: .notFound).response(accept: ["text/plain"])
///     // 404, text/plain: "404 Not Found: There is nothing at /trips/42."
package struct ProblemDetails: Sendable {
    package var status: HTTPStatus
    package var detail: String
    /// The kind of refusal, which the document's `type` names (the title stays the status's).
    package var type: ProblemType
    /// Fields the response must carry, such as `Allow` with a 405.
    package var headerFields: HTTPFields = [:]
    /// Members written after `detail`, in this order (`member`, `ids`, …).
    package var extensions: [(name: String, value: JSONValue)] = []

    package init(_ status: HTTPStatus, _ detail: String, type: ProblemType) {
        self.status = status
        self.detail = detail
        self.type = type
    }

    /// The error in the form `accept` prefers; without `Accept`, or when neither form is
    /// acceptable, the problem document (an error is never replaced by a 406). `instance` is
    /// the request's id as its `X-Request-ID` says it, so a client's report of the problem
    /// finds the request's access log line; nil when the server issues no ids.
    package func response(accept: [String] = [], instance: String? = nil) -> HTTPResponse {
        var fields = headerFields
        fields[.vary] = "Accept"
        if ContentNegotiation.choose([.problemJSON, .plainText], accept: accept) == 1 {
            fields[.contentType] = MediaType.plainText.contentTypeValue
            return HTTPResponse(
                status: status, headerFields: fields, body: Array("\(status.code) \(status.reasonPhrase): \(detail)\n".utf8))
        }
        var writer = JSONWriter()
        writer.appendRaw(#"{"type":"#)
        writer.appendString(type.uri)
        writer.appendRaw(#","title":"#)
        writer.appendString(status.reasonPhrase)
        writer.appendRaw(#","status":"#)
        writer.appendInteger(status.code)
        writer.appendRaw(#","detail":"#)
        writer.appendString(detail)
        if let instance {
            writer.appendRaw(#","instance":"#)
            writer.appendString(instance)
        }
        for (name, value) in extensions {
            writer.appendRaw(",")
            writer.appendString(name)
            writer.appendRaw(":")
            writer.appendValue(value)
        }
        writer.appendRaw("}")
        fields[.contentType] = MediaType.problemJSON.contentTypeValue
        return HTTPResponse(status: status, headerFields: fields, body: writer.bytes)
    }
}
