/// The `Prefer` request field (RFC 7240): what a client would like the server to do, when
/// the server can. Trips honours two preferences: `return=minimal` (§4.2), a change answered
/// without the changed resource, which for a reorder of a long list is most of the answer;
/// and `count=exact`, a page of a view answered with the view's total (`Trips-Total`).
/// Preferences it does not know are ignored, as the RFC says.
extension HTTPRequest {
    /// Whether the request asks for `return=minimal`.
    package var prefersMinimalReturn: Bool { prefers("return", "minimal") }

    /// Whether the request asks for `count=exact`.
    package var prefersExactCount: Bool { prefers("count", "exact") }

    /// Whether any `Prefer` field holds the preference `name=value` (a preference's name and
    /// this value are compared case-insensitively, its parameters after `;` are ignored, and
    /// other preferences in the same field do not matter).
    private func prefers(_ name: String, _ value: String) -> Bool {
        headerFields.values(for: .prefer).contains { field in
            splitList(field).contains { element in
                // The list splitter trims whitespace around each part, so `return = "minimal"` counts.
                guard let preference = splitList(element, separator: UInt8(ascii: ";")).first else { return false }
                let parts = splitList(preference, separator: UInt8(ascii: "="))
                return parts.count == 2 && parts[0].lowercased() == name && unquote(parts[1])?.lowercased() == value
            }
        }
    }
}
