/// The header fields of a message, in order, repeated fields kept.
///
/// A plain array: a handful of fields is searched faster linearly than through a hash table.
///
///     var fields: HTTPFields = [.contentType: "application/json"]
///     fields.append(.vary, "Accept")
///     fields[.contentType]  // "application/json"
package struct HTTPFields: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    private(set) var fields: [HTTPField]

    package init() { fields = [] }

    package init(_ fields: [HTTPField]) { self.fields = fields }

    package init(dictionaryLiteral elements: (HTTPField.Name, String)...) {
        fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    package var startIndex: Int { fields.startIndex }
    package var endIndex: Int { fields.endIndex }
    package subscript(position: Int) -> HTTPField { fields[position] }

    /// The first value for `name`. Setting replaces every field of that name with one field
    /// (at the position of the first), or removes them all when set to nil.
    package subscript(name: HTTPField.Name) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            guard let newValue else {
                fields.removeAll { $0.name == name }
                return
            }
            if let first = fields.firstIndex(where: { $0.name == name }) {
                fields[first].value = newValue
                var index = fields.index(after: first)
                while index < fields.endIndex {
                    if fields[index].name == name { fields.remove(at: index) } else { index += 1 }
                }
            } else {
                fields.append(HTTPField(name: name, value: newValue))
            }
        }
    }

    /// Every value for `name`, in order.
    package func values(for name: HTTPField.Name) -> [String] {
        fields.compactMap { $0.name == name ? $0.value : nil }
    }

    package func contains(_ name: HTTPField.Name) -> Bool {
        fields.contains { $0.name == name }
    }

    package mutating func append(_ name: HTTPField.Name, _ value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    package mutating func append(_ field: HTTPField) {
        fields.append(field)
    }

    package mutating func reserveCapacity(_ capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// Whether a comma-separated list field (such as Connection) holds `token`, case-insensitively.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9110#name-lists-rule-abnf-extension
    package func listContains(_ name: HTTPField.Name, token: String) -> Bool {
        let token = token.lowercased()
        return fields.contains { field in
            field.name == name && splitList(field.value).contains { $0.lowercased() == token }
        }
    }
}
