/// The `Prefer` request field (RFC 7240): what a client would like the server to do, when
/// the server can. Trips honours one preference, `return=minimal` (§4.2): a change answered
/// without the changed resource, which for a reorder of a long list is most of the answer.
extension HTTPRequest {
    /// Whether the request asks for `return=minimal` (a preference's name is case-insensitive,
    /// its parameters after `;` are ignored).
    var prefersMinimalReturn: Bool {
        headerFields.values(for: .prefer).contains { value in
            splitList(value).contains { element in
                let preference = element.prefix { $0 != ";" }
                let parts = preference.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
                return parts.count == 2 && parts[0].lowercased() == "return" && unquote(Substring(parts[1]))?.lowercased() == "minimal"
            }
        }
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
