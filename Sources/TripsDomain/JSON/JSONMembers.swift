import Foundation
import TripsFormats

/// The members of a JSON object being read into a value: each is taken once, and
/// whatever is left over at the end is an error, so a misspelt key is never lost silently.
package struct JSONMembers {
    private var members: [String: JSONValue]

    /// The object's members; anything else is refused with `what` ("a trip") in the message.
    package init(_ value: JSONValue, describing what: String) throws(TripsError) {
        guard case .object(let members) = value else {
            throw .invalidBody("\(what) must be a JSON object, not \(value.kindName)")
        }
        self.members = members
    }

    /// Removes and returns a member as it is; nil when absent.
    package mutating func take(_ name: String) -> JSONValue? {
        members.removeValue(forKey: name)
    }

    /// Removes a member that must be there and reads it as `T`.
    package mutating func required<T: JSONReadable>(_ name: String) throws(TripsError) -> T {
        guard let value = take(name) else { throw .invalidMember(name, "is required") }
        return try read(value, name)
    }

    /// Removes a member that may be left out or null, and reads it as `T`.
    package mutating func optional<T: JSONReadable>(_ name: String) throws(TripsError) -> T? {
        switch take(name) {
        case nil, .null?: nil
        case let value?: try read(value, name)
        }
    }

    /// Throws for the first (alphabetically) member nobody took.
    package func rejectUnknown() throws(TripsError) {
        if let name = unknownNames.first { throw .unknownMember(name) }
    }

    /// The members nobody took, in alphabetical order.
    package var unknownNames: [String] {
        members.keys.sorted()
    }

    private func read<T: JSONReadable>(_ value: JSONValue, _ name: String) throws(TripsError) -> T {
        try Self.read(value, as: T.self, member: name)
    }

    /// Reads `value` as `T`; a mismatch is reported against the member `name`.
    package static func read<T: JSONReadable>(_ value: JSONValue, as type: T.Type, member name: String) throws(TripsError) -> T {
        do {
            return try T(json: value)
        } catch {
            throw .invalidMember(name, error.reason)
        }
    }
}

/// Why a JSON value is not of the type a member needs ("must be a string, not a number").
package struct JSONTypeMismatch: Error {
    package let reason: String
}

/// A type one JSON member can be read as.
package protocol JSONReadable {
    init(json: JSONValue) throws(JSONTypeMismatch)
}

extension JSONReadable {
    package static func mismatch(_ expected: String, _ value: JSONValue) -> JSONTypeMismatch {
        JSONTypeMismatch(reason: "must be \(expected), not \(value.kindName)")
    }
}

extension String: JSONReadable {
    package init(json: JSONValue) throws(JSONTypeMismatch) {
        guard case .string(let string) = json else { throw Self.mismatch("a string", json) }
        self = string
    }
}

extension Bool: JSONReadable {
    package init(json: JSONValue) throws(JSONTypeMismatch) {
        guard case .bool(let bool) = json else { throw Self.mismatch("true or false", json) }
        self = bool
    }
}

extension Int: JSONReadable {
    /// A whole number within `Int`. As in JSON Schema, `3.0` and `3e0` are whole numbers too.
    package init(json: JSONValue) throws(JSONTypeMismatch) {
        guard case .number(let literal) = json else { throw Self.mismatch("a whole number", json) }
        if let integer = Int(literal) {
            self = integer
            return
        }
        // A whole Decimal describes itself without a point: "3.0" → "3", "1e3" → "1000".
        guard let decimal = Decimal(string: literal, locale: nil), let integer = Int(decimal.description) else {
            throw JSONTypeMismatch(reason: "must be a whole number, not \(literal)")
        }
        self = integer
    }
}

extension Date: JSONReadable {
    /// An RFC 3339 timestamp or a bare date.
    package init(json: JSONValue) throws(JSONTypeMismatch) {
        guard case .string(let text) = json else { throw Self.mismatch("a date string", json) }
        guard let date = TripDate.parse(text) else {
            throw JSONTypeMismatch(
                reason: "must be an RFC 3339 timestamp like 2027-03-05T00:00:00Z or a date like 2027-03-05, not \"\(text)\"")
        }
        self = date
    }
}

extension JSONMembers {
    package mutating func required<T: JSONReadable>(_ field: Trip.Field) throws(TripsError) -> T {
        try required(field.rawValue)
    }

    package mutating func optional<T: JSONReadable>(_ field: Trip.Field) throws(TripsError) -> T? {
        try optional(field.rawValue)
    }
}

extension JSONValue: JSONReadable {
    /// Any value at all: for members whose shape the caller inspects itself.
    package init(json: JSONValue) {
        self = json
    }
}
