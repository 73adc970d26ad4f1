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

    /// Reads `"opaque"` or `W/"opaque"`; nil for anything else (`0`, `abc`, a quote inside).
    package init?(parsing element: some StringProtocol) {
        var text = Substring(element)
        let isWeak = text.hasPrefix("W/")
        if isWeak { text = text.dropFirst(2) }
        guard text.count >= 2, text.first == "\"", text.last == "\"", !text.dropFirst().dropLast().contains("\"") else {
            return nil
        }
        self.init(String(text.dropFirst().dropLast()), isWeak: isWeak)
    }

    /// `"opaque"` or `W/"opaque"`, written into one string at once (by interpolation, two
    /// tags cost a create's answer some 900 instructions).
    package var headerValue: String {
        let prefix = isWeak ? #"W/""# : #"""#
        return String(unsafeUninitializedCapacity: prefix.utf8.count + opaque.utf8.count + 1) { room in
            var written = room.initialize(fromContentsOf: prefix.utf8)
            written = room[written...].initialize(fromContentsOf: opaque.utf8)
            room[written] = UInt8(ascii: "\"")
            return written + 1
        }
    }
}

/// Each content coding of a representation has a tag of its own, as a cache needs (RFC 9110
/// §8.8.3.3): the identity tag with the coding's name appended, inside the quotes, as Apache
/// does (`"list-r5-json"`, `"list-r5-json-gzip"`). The coded bytes are the same every time
/// for the same content, so the tag stays strong.
extension EntityTag {
    private static let gzipSuffix = "-" + ContentCoding.gzip.name

    /// The tag of this representation sent in `coding`.
    package func coded(_ coding: ContentCoding) -> EntityTag {
        coding == .gzip ? EntityTag(opaque + Self.gzipSuffix, isWeak: isWeak) : self
    }

    /// Whether the tag names a coded representation (its opaque part ends with `-gzip`).
    package var isCoded: Bool { opaque.hasSuffix(Self.gzipSuffix) }

    /// The tag of the same representation before its coding: itself for an identity tag.
    package var uncoded: EntityTag {
        isCoded ? EntityTag(String(opaque.dropLast(Self.gzipSuffix.utf8.count)), isWeak: isWeak) : self
    }
}

/// The tags an `If-Match` or `If-None-Match` field lists, or `*`.
///
/// A tag names the same representation in every coding: a client may send the tag of the
/// gzip answer it got (`"trip-2-v3-json-gzip"`) where the server lists identity tags.
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
                if let tag = EntityTag(parsing: element) { tags.append(tag) }
            }
        }
        return .tags(tags)
    }

    /// `If-Match`: strong comparison against the current representations' tags, in any coding.
    /// https://www.rfc-editor.org/rfc/rfc9110#name-comparison-2
    package func matchesStrongly(_ current: [EntityTag]) -> Bool {
        switch self {
        case .any: !current.isEmpty
        case .tags(let tags): tags.contains { !$0.isWeak && (current.contains($0) || current.contains($0.uncoded)) }
        }
    }

    /// `If-None-Match`: weak comparison (opaque strings alone), in any coding.
    package func matchesWeakly(_ current: EntityTag) -> Bool {
        weakMatch(current) != nil
    }

    /// The tag the client sent that names `current`, in whichever coding it names it (`current`
    /// itself for `*`); nil when none does.
    package func weakMatch(_ current: EntityTag) -> EntityTag? {
        switch self {
        case .any: current
        case .tags(let tags): tags.first { $0.opaque == current.opaque || $0.uncoded.opaque == current.opaque }
        }
    }
}
