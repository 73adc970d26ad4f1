/// A parsed JSON document that keeps numbers as the text they were written in.
///
/// `Double` cannot hold `0.1` or `1299.99` exactly, so a number stays a validated
/// literal until the field that reads it decides whether it is an `Int` or a `Decimal`.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A literal that matches the JSON number grammar (RFC 8259 §6).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a whole document.
    ///
    ///     try JSONValue(parsing: Array(#"{"a": [1, 2.5]}"#.utf8))
    public init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes)
        self = try parser.parseDocument()
    }

    /// The members of a document that is one object whose values are all strings, numbers,
    /// `true`, `false` or `null`, in the order written: what most request bodies are (a trip's
    /// draft), read in one pass without a table of its members (hashing each name to build
    /// it, and again to look it up, cost more than reading the bytes). nil for any other
    /// document (a value nested, more than 16 members, a name repeated) and for bytes that are
    /// not JSON at all: `init(parsing:)` reads those, or says why not.
    package static func flatObjectMembers(parsing bytes: [UInt8]) -> [(name: String, value: JSONValue)]? {
        var parser = JSONParser(bytes)
        return parser.parseFlatObject()
    }

    /// The JSON type's name, for error messages ("expected a string, found a number").
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a body is not JSON at all, and where the trouble starts.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset of the first byte that could not be read.
    public let offset: Int
    public let reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}
