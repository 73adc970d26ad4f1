import Foundation
import TripsDomain
import TripsFormats

/// Why a record's payload, though its checksum matched, is not what storage writes.
package struct StoredJSONError: Error {
    package let reason: String
}

/// Reads the members of one stored JSON object strictly: each is taken once and anything
/// left over is an error, so a record written by a newer format is refused, not half-read.
package struct StoredObject {
    private var members: [String: JSONValue]

    package init(_ value: JSONValue, describing what: String) throws(StoredJSONError) {
        guard case .object(let members) = value else { throw StoredJSONError(reason: "\(what) is not a JSON object") }
        self.members = members
    }

    /// Parses a payload that must be one JSON object.
    package init(parsing payload: [UInt8], describing what: String) throws(StoredJSONError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: payload)
        } catch {
            throw StoredJSONError(reason: "\(what) is not JSON: \(error)")
        }
        try self.init(value, describing: what)
    }

    /// Takes every member left, as an object (for a reader that checks them itself).
    package mutating func takeRest() -> JSONValue {
        defer { members = [:] }
        return .object(members)
    }

    /// Whether the object still has the member `name`.
    package func has(_ name: String) -> Bool {
        members[name] != nil
    }

    package mutating func value(_ name: String) throws(StoredJSONError) -> JSONValue {
        guard let value = members.removeValue(forKey: name) else { throw StoredJSONError(reason: "\(name) is missing") }
        return value
    }

    package mutating func string(_ name: String) throws(StoredJSONError) -> String {
        guard case .string(let text) = try value(name) else { throw StoredJSONError(reason: "\(name) is not a string") }
        return text
    }

    package mutating func bool(_ name: String) throws(StoredJSONError) -> Bool {
        guard case .bool(let flag) = try value(name) else { throw StoredJSONError(reason: "\(name) is not a boolean") }
        return flag
    }

    package mutating func integer<Integer: FixedWidthInteger>(_ name: String, as type: Integer.Type = Integer.self)
        throws(StoredJSONError) -> Integer
    {
        try Self.integer(try value(name), name)
    }

    package mutating func integers(_ name: String) throws(StoredJSONError) -> [Int] {
        guard case .array(let elements) = try value(name) else { throw StoredJSONError(reason: "\(name) is not an array") }
        var integers: [Int] = []
        integers.reserveCapacity(elements.count)
        for element in elements { integers.append(try Self.integer(element, name)) }
        return integers
    }

    /// A price, exactly as written.
    package mutating func price(_ name: String) throws(StoredJSONError) -> Price {
        guard case .number(let literal) = try value(name), let price = try? Price(literal: literal.utf8) else {
            throw StoredJSONError(reason: "\(name) is not a decimal number")
        }
        return price
    }

    /// An instant written by `JSONWriter.appendExactDate`.
    package mutating func date(_ name: String) throws(StoredJSONError) -> Date {
        switch try value(name) {
        case .string(let text):
            if let date = TripDate.parse(text) { return date }
        case .number(let literal):
            if let seconds = Double(literal) {
                let date = Date(timeIntervalSinceReferenceDate: seconds)
                if TripDate.isInRange(date) { return date }
            }
        default:
            break
        }
        throw StoredJSONError(reason: "\(name) is not a date")
    }

    /// Throws when a member nobody read is left over.
    package func finish() throws(StoredJSONError) {
        if let name = members.keys.min() { throw StoredJSONError(reason: "unexpected member \(name)") }
    }

    private static func integer<Integer: FixedWidthInteger>(_ value: JSONValue, _ name: String) throws(StoredJSONError) -> Integer {
        guard case .number(let literal) = value, let integer = Integer(literal) else {
            throw StoredJSONError(reason: "\(name) is not a whole number")
        }
        return integer
    }
}

extension JSONWriter {
    /// A date that reads back as exactly the same `Date`: RFC 3339 when that text is exact
    /// (whole milliseconds), otherwise the seconds since 2001 as the shortest exact `Double`.
    package mutating func appendExactDate(_ date: Date) {
        // Most dates (trips start at midnight) need no text built and parsed back.
        if appendWholeSecondTimestamp(date) { return }
        let seconds = date.timeIntervalSinceReferenceDate
        if abs(seconds) < 1e12 {
            let text = TripDate.rfc3339(date)
            if TripDate.parse(text) == date {
                appendString(text)
                return
            }
        }
        // Swift prints the shortest digits that read back as the same Double, in JSON number syntax.
        appendRaw(seconds.isFinite ? "\(seconds)" : "0")
    }

    /// The eight members of a draft, `"city":…,"notes":…`, without braces.
    package mutating func appendDraftMembers(_ draft: TripDraft) {
        appendRaw(#""city":"#)
        appendString(draft.city)
        appendRaw(#","country":"#)
        appendString(draft.country)
        appendRaw(#","nights":"#)
        appendInteger(draft.nights)
        appendRaw(#","isFavorite":"#)
        appendBool(draft.isFavorite)
        appendRaw(#","imageName":"#)
        appendString(draft.imageName)
        appendRaw(#","price":"#)
        appendRaw(draft.exactPrice.digits)
        appendRaw(#","start":"#)
        appendExactDate(draft.start)
        appendRaw(#","notes":"#)
        appendString(draft.notes)
    }

    /// A draft as a JSON object.
    package mutating func appendDraft(_ draft: TripDraft) {
        appendRaw("{")
        appendDraftMembers(draft)
        appendRaw("}")
    }
}

extension StoredObject {
    /// Takes the eight members `appendDraftMembers` writes.
    package mutating func draftMembers() throws(StoredJSONError) -> TripDraft {
        TripDraft(
            city: try string("city"), country: try string("country"), nights: try integer("nights"),
            isFavorite: try bool("isFavorite"), imageName: try string("imageName"), price: try price("price"),
            start: try date("start"), notes: try string("notes"))
    }

    /// Reads a member holding a draft object.
    package mutating func draft(_ name: String) throws(StoredJSONError) -> TripDraft {
        try Self.draft(try value(name), name)
    }

    /// Reads a member holding an array of draft objects.
    package mutating func drafts(_ name: String) throws(StoredJSONError) -> [TripDraft] {
        guard case .array(let elements) = try value(name) else { throw StoredJSONError(reason: "\(name) is not an array") }
        var drafts: [TripDraft] = []
        drafts.reserveCapacity(elements.count)
        for element in elements { drafts.append(try Self.draft(element, name)) }
        return drafts
    }

    private static func draft(_ value: JSONValue, _ name: String) throws(StoredJSONError) -> TripDraft {
        var object = try StoredObject(value, describing: name)
        let draft = try object.draftMembers()
        try object.finish()
        return draft
    }
}

extension JSONWriter {
    /// `{"key":…,"scope":…,"fingerprint":…,"at":…,"status":201,"fields":{…},"body":"…"}`, with
    /// `"outcome":{…}` (`appendKeptOutcome`) instead of `"body"` for an answer too large to
    /// keep, and no `"scope"` for a key used without a token.
    package mutating func appendKeyUse(_ use: IdempotencyKeyUse) {
        appendRaw(#"{"key":"#)
        appendString(use.key)
        if !use.scope.isEmpty {
            appendRaw(#","scope":"#)
            appendString(use.scope)
        }
        appendRaw(#","fingerprint":"#)
        appendString(use.fingerprint)
        appendRaw(#","at":"#)
        appendInteger(use.at)
        appendRaw(#","status":"#)
        appendInteger(use.answer.status)
        appendRaw(#","fields":"#)
        appendValue(.object(use.answer.fields.mapValues(JSONValue.string)))
        switch use.answer.content {
        case .body(let body):
            appendRaw(#","body":"#)
            appendString(String(decoding: body, as: UTF8.self))
        case .remade(let outcome):
            appendRaw(#","outcome":"#)
            appendKeptOutcome(outcome)
        }
        appendRaw("}")
    }

    /// `{"trip":7}`, `{"added":[7,8]}`, `{"addedFavorites":[2]}`, `{"listChanged":true}` or `{}`.
    private mutating func appendKeptOutcome(_ outcome: KeptOutcome) {
        switch outcome {
        case .trip(let id):
            appendRaw(#"{"trip":"#)
            appendInteger(id)
        case .added(let ids):
            appendRaw(#"{"added":"#)
            appendIntegers(ids)
        case .addedFavorites(let ids):
            appendRaw(#"{"addedFavorites":"#)
            appendIntegers(ids)
        case .listChanged(let changed):
            appendRaw(#"{"listChanged":"#)
            appendBool(changed)
        case .nothing:
            appendRaw("{")
        }
        appendRaw("}")
    }
}

extension StoredObject {
    /// Reads what `appendKeyUse` writes, and what it wrote before keys had scopes and large
    /// answers were left out (every answer with its body).
    package static func keyUse(_ value: JSONValue) throws(StoredJSONError) -> IdempotencyKeyUse {
        var object = try StoredObject(value, describing: "idempotency")
        let key = try object.string("key")
        let scope = object.has("scope") ? try object.string("scope") : ""
        let fingerprint = try object.string("fingerprint")
        let at: Int64 = try object.integer("at")
        let status: Int = try object.integer("status")
        guard case .object(let members) = try object.value("fields") else { throw StoredJSONError(reason: "fields is not an object") }
        var fields: [String: String] = [:]
        for (name, value) in members {
            guard case .string(let text) = value else { throw StoredJSONError(reason: "field \(name) is not a string") }
            fields[name] = text
        }
        let content: StoredAnswer.Content =
            object.has("outcome") ? .remade(try keptOutcome(try object.value("outcome"))) : .body(Array(try object.string("body").utf8))
        try object.finish()
        let answer = StoredAnswer(status: status, fields: fields, content: content)
        return IdempotencyKeyUse(key: key, scope: scope, fingerprint: fingerprint, at: at, answer: answer)
    }

    /// Reads what `appendKeptOutcome` writes.
    private static func keptOutcome(_ value: JSONValue) throws(StoredJSONError) -> KeptOutcome {
        var object = try StoredObject(value, describing: "outcome")
        let outcome: KeptOutcome
        if object.has("trip") {
            outcome = .trip(try object.integer("trip"))
        } else if object.has("added") {
            outcome = .added(try object.integers("added"))
        } else if object.has("addedFavorites") {
            outcome = .addedFavorites(try object.integers("addedFavorites"))
        } else if object.has("listChanged") {
            outcome = .listChanged(try object.bool("listChanged"))
        } else {
            outcome = .nothing
        }
        try object.finish()
        return outcome
    }
}
