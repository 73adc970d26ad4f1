/// The header fields of a message, in order, repeated fields kept.
///
/// A plain array: a handful of fields is searched faster linearly than through a hash table;
/// and a bit per indexed name (`HTTPField.Name.indexed`) says whether the array holds it, so
/// most lookups, of fields a request does not have, end before the array is read.
///
///     var fields: HTTPFields = [.contentType: "application/json"]
///     fields.append(.vary, "Accept")
///     fields[.contentType]  // "application/json"
@usableFromInline package struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    @usableFromInline private(set) var fields: [HTTPField]
    /// Bit `i` set: `fields` holds a field whose name has index `i`. A function of `fields`.
    @usableFromInline var indexed: UInt64

    package init() {
        fields = []
        indexed = 0
    }

    package init(_ fields: [HTTPField]) {
        self.fields = fields
        indexed = fields.reduce(0) { $0 | Self.bit($1.name) }
    }

    @usableFromInline package init(dictionaryLiteral elements: (HTTPField.Name, String)...) {
        self.init(elements.map { HTTPField(name: $0.0, value: $0.1) })
    }

    /// A name's bit in `indexed`; none for a name that is not indexed, so that fields holding
    /// the same are equal however they were made.
    @inlinable static func bit(_ name: HTTPField.Name) -> UInt64 { name.index == 0 ? 0 : 1 << name.index }

    /// False only when `name` is indexed and no field has it; otherwise the array tells.
    @inlinable func mayHold(_ name: HTTPField.Name) -> Bool {
        name.index == 0 || indexed & Self.bit(name) != 0
    }

    @usableFromInline package var startIndex: Int { fields.startIndex }
    @usableFromInline package var endIndex: Int { fields.endIndex }
    @usableFromInline package subscript(position: Int) -> HTTPField { fields[position] }

    /// The first value for `name`. Setting replaces every field of that name with one field
    /// (at the position of the first), or removes them all when set to nil.
    package subscript(name: HTTPField.Name) -> String? {
        get { mayHold(name) ? fields.first { $0.name == name }?.value : nil }
        set {
            guard let newValue else {
                guard mayHold(name) else { return }
                fields.removeAll { $0.name == name }
                indexed &= ~Self.bit(name)
                return
            }
            if mayHold(name), let first = fields.firstIndex(where: { $0.name == name }) {
                fields[first].value = newValue
                var index = fields.index(after: first)
                while index < fields.endIndex {
                    if fields[index].name == name { fields.remove(at: index) } else { index += 1 }
                }
            } else {
                append(name, newValue)
            }
        }
    }

    /// Every value for `name`, in order.
    package func values(for name: HTTPField.Name) -> [String] {
        mayHold(name) ? fields.compactMap { $0.name == name ? $0.value : nil } : []
    }

    /// The value for `name` when exactly one field has it, nil otherwise: a list field
    /// (`Accept`) read in its commonest form without making an array.
    package func onlyValue(for name: HTTPField.Name) -> String? {
        guard mayHold(name), let first = fields.firstIndex(where: { $0.name == name }) else { return nil }
        let isOnly = !fields[(first + 1)...].contains { $0.name == name }
        return isOnly ? fields[first].value : nil
    }

    /// Whether more than one field has `name`: a test of a bit when none has it.
    @inlinable package func isRepeated(_ name: HTTPField.Name) -> Bool {
        guard mayHold(name), let first = fields.firstIndex(where: { $0.name == name }) else { return false }
        return fields[(first + 1)...].contains { $0.name == name }
    }

    @inlinable package func contains(_ name: HTTPField.Name) -> Bool {
        name.index == 0 ? fields.contains { $0.name == name } : indexed & Self.bit(name) != 0
    }

    package mutating func append(_ name: HTTPField.Name, _ value: String) {
        append(HTTPField(name: name, value: value))
    }

    package mutating func append(_ field: HTTPField) {
        fields.append(field)
        indexed |= Self.bit(field.name)
    }

    package mutating func reserveCapacity(_ capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    package mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            // One at a time: `Array.removeAll(keepingCapacity:)` goes through a generic
            // `replaceSubrange` that cost ~200 instructions for the field or two of a request.
            while !fields.isEmpty { fields.removeLast() }
        } else {
            fields = []
        }
        indexed = 0
    }

    /// Whether a comma-separated list field (such as Connection) holds `token` (written in
    /// lowercase), case-insensitively. Each element is compared where it lies in the value:
    /// splitting the value and lowercasing each element made a string of each (~1,000
    /// instructions a field, on every answer not kept prepared, for its `Vary`).
    ///
    /// https://www.rfc-editor.org/rfc/rfc9110#name-lists-rule-abnf-extension
    package func listContains(_ name: HTTPField.Name, token: StaticString) -> Bool {
        guard mayHold(name) else { return false }
        for field in fields where field.name == name {
            var value = field.value
            var holds = false
            value.withUTF8 { bytes in
                let bytes = UnsafeRawBufferPointer(bytes)
                forEachListElement(bytes) { element in
                    holds = holds || equalsCaseInsensitive(UnsafeRawBufferPointer(rebasing: bytes[element]), token)
                }
            }
            if holds { return true }
        }
        return false
    }
}
