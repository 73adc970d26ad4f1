extension HTTPResponse {
    /// A problem details response (`application/problem+json`).
    ///
    ///     HTTPResponse.problem(.badRequest, detail: "The request line is malformed.")
    ///     // {"type":"about:blank","title":"Bad Request","status":400,"detail":"The request line is malformed."}
    ///
    /// https://www.rfc-editor.org/rfc/rfc9457
    static func problem(
        _ status: HTTPStatus, detail: String? = nil, type: String = "about:blank",
        headerFields: HTTPFields = [:]
    ) -> HTTPResponse {
        var json = "{\"type\":\(jsonString(type)),\"title\":\(jsonString(status.reasonPhrase)),\"status\":\(status.code)"
        if let detail { json += ",\"detail\":\(jsonString(detail))" }
        json += "}"
        var fields = headerFields
        fields[.contentType] = "application/problem+json"
        return HTTPResponse(status: status, headerFields: fields, body: Array(json.utf8))
    }

    /// A JSON string literal for `string`, escaped per RFC 8259 §7.
    static func jsonString(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
