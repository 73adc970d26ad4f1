/// A media type a representation is written in, such as `application/json`.
/// Compared case-insensitively, as RFC 9110 §8.3.1 says types and subtypes are.
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased, e.g. `text`.
    public let type: String
    /// Lowercased, e.g. `plain`.
    public let subtype: String

    public init(type: String, subtype: String) {
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
    }

    public static let json = MediaType(type: "application", subtype: "json")
    public static let plainText = MediaType(type: "text", subtype: "plain")

    public var description: String { "\(type)/\(subtype)" }
}
