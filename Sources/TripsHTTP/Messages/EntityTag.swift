/// A strong or weak entity tag, as `ETag`, `If-Match` and `If-None-Match` carry them.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-etag
package struct EntityTag: Sendable, Hashable {
    /// The characters between the quotes.
    package let opaque: String
    package let isWeak: Bool

    package init(_ opaque: String, isWeak: Bool = false) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// `"opaque"` or `W/"opaque"`.
    package var headerValue: String {
        isWeak ? "W/\"\(opaque)\"" : "\"\(opaque)\""
    }
}

/// The tags an `If-Match` or `If-None-Match` field lists, or `*`.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-if-match
package enum EntityTagCondition: Sendable, Hashable {
    case any
    case tags([EntityTag])

    /// Reads every value of one precondition field; nil when it is absent.
    ///
    /// An element that is not an entity tag (`0`, `abc`) names no representation, so it can
    /// never match: `If-Match: 0` fails (412) and `If-None-Match: 0` lets the request through,
    /// as a tag that was never issued would.
    package static func parse(_ values: [String]) -> EntityTagCondition? {
        guard !values.isEmpty else { return nil }
        var tags: [EntityTag] = []
        for value in values {
            for element in splitList(value) {
                if element == "*" { return .any }
                var text = element
                let isWeak = text.hasPrefix("W/")
                if isWeak { text = text.dropFirst(2) }
                guard text.count >= 2, text.first == "\"", text.last == "\"",
                    !text.dropFirst().dropLast().contains("\"")
                else { continue }
                tags.append(EntityTag(String(text.dropFirst().dropLast()), isWeak: isWeak))
            }
        }
        return .tags(tags)
    }

    /// `If-Match`: strong comparison against the current representations' tags.
    package func matchesStrongly(_ current: [EntityTag]) -> Bool {
        switch self {
        case .any: !current.isEmpty
        case .tags(let tags): tags.contains { !$0.isWeak && current.contains($0) }
        }
    }

    /// `If-None-Match`: weak comparison (opaque strings alone).
    package func matchesWeakly(_ current: EntityTag) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { $0.opaque == current.opaque }
        }
    }
}
