/// PostgreSQL's text form of a one-dimensional array, `{"a","b \"c\"",NULL}`: how a list of
/// values travels as one bound parameter (`$1::text[]`, `unnest($1::bigint[])`), so that a
/// statement touching k rows is one round trip and still no SQL is built from data.
///
/// Every element is quoted, with `"` and `\` escaped by a backslash, which is right for
/// every element type; nil is `NULL`.
/// https://www.postgresql.org/docs/current/arrays.html#ARRAYS-IO
package enum PostgresArrayLiteral {
    package static func encode(_ elements: some Sequence<String?>) -> String {
        var literal = "{"
        var isFirst = true
        for element in elements {
            if !isFirst { literal += "," }
            isFirst = false
            guard let element else {
                literal += "NULL"
                continue
            }
            literal += "\""
            for character in element.unicodeScalars {
                if character == "\"" || character == "\\" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }

    package static func encode<Integer: BinaryInteger>(_ elements: some Sequence<Integer>) -> String {
        "{" + elements.map { String($0) }.joined(separator: ",") + "}"
    }
}
