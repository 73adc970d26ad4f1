/// Why a request was refused before it reached the handler.
///
/// Each case names one problem and maps to the status and the sentence the client gets.
/// After any of them the connection is closed, because the framing can no longer be trusted.
package enum HTTPParseError: Error, Hashable, Sendable, CaseIterable {
    /// The request line is not `method SP target SP version CRLF`.
    case malformedRequestLine
    /// The method is not a token.
    case invalidMethod
    /// The method is a token this server does not implement.
    case methodNotImplemented
    /// The request target has forbidden characters or an unknown form.
    case invalidTarget
    /// The version is not `HTTP/DIGIT.DIGIT`.
    case invalidVersion
    /// The version is well formed but not 1.0 or 1.1.
    case versionNotSupported
    /// The request line is longer than `Limits.maxRequestLineLength`.
    case requestLineTooLong
    /// The field section is longer than `Limits.maxHeaderSectionLength`.
    case headerSectionTooLarge
    /// More than `Limits.maxHeaderFieldCount` field lines.
    case tooManyHeaderFields
    /// A line ends with LF alone or has a CR not followed by LF.
    case invalidLineEnding
    /// A field line starts with whitespace (obsolete line folding).
    case obsoleteLineFolding
    /// Whitespace between a field name and its colon.
    case whitespaceBeforeColon
    /// A field line with no colon, an empty name, or a name that is not a token.
    case invalidFieldName
    /// A field value holds a control character.
    case invalidFieldValue
    /// An HTTP/1.1 request without Host.
    case missingHost
    /// More than one Host field.
    case multipleHost
    /// A Host value that is not `uri-host [ ":" port ]`.
    case invalidHost
    /// Content-Length is not plain digits, or overflows.
    case invalidContentLength
    /// Content-Length values that disagree.
    case conflictingContentLength
    /// Both Content-Length and Transfer-Encoding.
    case contentLengthWithTransferEncoding
    /// Transfer-Encoding in an HTTP/1.0 request.
    case transferEncodingInHTTP1_0
    /// Transfer-Encoding whose final coding is not chunked (or chunked applied twice).
    case chunkedNotFinal
    /// Transfer-Encoding with a coding other than chunked.
    case unsupportedTransferCoding
    /// A chunk size that is not hex, overflows, or a malformed chunk line.
    case invalidChunkSize
    /// Chunk data not followed by CRLF.
    case invalidChunkTerminator
    /// The content is longer than the request's limit (`Limits.maxBodyLength`, or what its
    /// handler allows for its route).
    case contentTooLarge
    /// An Expect value other than 100-continue.
    case unsupportedExpectation

    /// The status the client gets.
    var status: HTTPStatus {
        switch self {
        case .methodNotImplemented, .unsupportedTransferCoding: .notImplemented
        case .versionNotSupported: .httpVersionNotSupported
        case .requestLineTooLong: .uriTooLong
        case .headerSectionTooLarge, .tooManyHeaderFields: .requestHeaderFieldsTooLarge
        case .contentTooLarge: .contentTooLarge
        case .unsupportedExpectation: .expectationFailed
        default: .badRequest
        }
    }

    /// The kind of problem the client is told of.
    var type: ProblemType {
        switch self {
        case .methodNotImplemented, .unsupportedTransferCoding, .versionNotSupported, .unsupportedExpectation: .notImplemented
        case .requestLineTooLong, .headerSectionTooLarge, .tooManyHeaderFields, .contentTooLarge: .tooLarge
        default: .malformedRequest
        }
    }

    /// The problem detail sentence the client gets.
    var detail: String {
        switch self {
        case .malformedRequestLine: "The request line is not 'method target version'."
        case .invalidMethod: "The method is not a valid token."
        case .methodNotImplemented: "The method is not implemented by this server."
        case .invalidTarget: "The request target is not valid."
        case .invalidVersion: "The HTTP version is malformed."
        case .versionNotSupported: "Only HTTP/1.0 and HTTP/1.1 are supported."
        case .requestLineTooLong: "The request line is too long."
        case .headerSectionTooLarge: "The header section is too large."
        case .tooManyHeaderFields: "The request has too many header fields."
        case .invalidLineEnding: "Lines must end with CRLF and must not contain a bare CR."
        case .obsoleteLineFolding: "Obsolete line folding is not accepted."
        case .whitespaceBeforeColon: "A field name must not be followed by whitespace before the colon."
        case .invalidFieldName: "A header field name is not a valid token."
        case .invalidFieldValue: "A header field value contains a control character."
        case .missingHost: "An HTTP/1.1 request must have a Host header field."
        case .multipleHost: "The request has more than one Host header field."
        case .invalidHost: "The Host header field must be a host name or address with an optional port."
        case .invalidContentLength: "Content-Length must be a non-negative decimal number."
        case .conflictingContentLength: "The request has conflicting Content-Length values."
        case .contentLengthWithTransferEncoding: "A request must not have both Content-Length and Transfer-Encoding."
        case .transferEncodingInHTTP1_0: "Transfer-Encoding is not accepted in an HTTP/1.0 request."
        case .chunkedNotFinal: "The chunked transfer coding must be applied once, last."
        case .unsupportedTransferCoding: "Only the chunked transfer coding is supported."
        case .invalidChunkSize: "A chunk size line is malformed."
        case .invalidChunkTerminator: "Chunk data must be followed by CRLF."
        case .contentTooLarge: "The request content is larger than this resource takes."
        case .unsupportedExpectation: "Only the 100-continue expectation is supported."
        }
    }

    /// The problem response for this error, in the form `accept` prefers.
    func response(accept: [String] = [], instance: String? = nil) -> HTTPResponse {
        ProblemDetails(status, detail, type: type).response(accept: accept, instance: instance)
    }
}
