/// The `Prefer` request field (RFC 7240): what a client would like the server to do, when
/// the server can. Trips honours one preference, `return=minimal` (§4.2): a change answered
/// without the changed resource, which for a reorder of a long list is most of the answer.
extension HTTPRequest {
    /// Whether the request asks for `return=minimal` (a preference's name is case-insensitive,
    /// its parameters after `;` are ignored).
    package var prefersMinimalReturn: Bool {
        headerFields.values(for: .prefer).contains { value in
            splitList(value).contains { element in
                // The list splitter trims whitespace around each part, so `return = "minimal"` counts.
                guard let preference = splitList(element, separator: UInt8(ascii: ";")).first else { return false }
                let parts = splitList(preference, separator: UInt8(ascii: "="))
                return parts.count == 2 && parts[0].lowercased() == "return" && unquote(parts[1])?.lowercased() == "minimal"
            }
        }
    }
}
