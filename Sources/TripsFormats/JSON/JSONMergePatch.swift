extension JSONValue {
    /// This value with a JSON merge patch applied (RFC 7396 §2): object members merge
    /// recursively, `null` removes a member, anything else replaces the target whole.
    /// https://www.rfc-editor.org/rfc/rfc7396#section-2
    package func mergePatched(with patch: JSONValue) -> JSONValue {
        guard case .object(let changes) = patch else { return patch }
        var members: [String: JSONValue]
        if case .object(let existing) = self { members = existing } else { members = [:] }
        for (name, change) in changes {
            if change == .null {
                members.removeValue(forKey: name)
            } else {
                members[name] = (members[name] ?? .null).mergePatched(with: change)
            }
        }
        return .object(members)
    }
}
