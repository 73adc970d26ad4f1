import TripsHTTP

extension HTTPRequest {
    /// 400 when more than one field has `name`, a field that takes one value and decides who
    /// the request is (`Authorization`), whether it may change anything (`Origin`,
    /// `Sec-Fetch-Site`), how its body reads (`Content-Type`) or whether it is made again
    /// (`Idempotency-Key`). Such a request says two things, and which one a recipient heeds
    /// (the first here, the last or both joined in a proxy) decides it (RFC 9110 §5.3).
    /// Checked where each is read, so a request without them pays nothing.
    func refuseRepeated(_ name: HTTPField.Name) throws(APIError) {
        if headerFields.isRepeated(name) { throw APIError(.badRequest, "The request has more than one \(name) field.") }
    }
}
