/// PostgreSQL's text form of a one-dimensional array, `{"a","b \"c\"",NULL}`: how a list of
/// values travels as one bound parameter (`$1::text[]`, `unnest($1::bigint[])`), so that a
/// statement touching k rows is one round trip and still no SQL is built from data.
///
/// Every element is quoted, with `"` and `\` escaped by a backslash, which is right for
/// every element type; nil is `NULL`.
/// https://www.postgresql.org/docs/current/arrays.html#ARRAYS-IO
package enum PostgresArrayLiteral {
    package static func encode(_ elements: some Sequence<String?>) -> String {
        // Built as UTF-8 bytes, copying the runs between the characters to escape whole: a
        // transaction's rows and records go through here, and a `String` grown a scalar at a
        // time took a seventh of a writing instance's time.
        var literal: [UInt8] = [UInt8(ascii: "{")]
        var isFirst = true
        for element in elements {
            if !isFirst { literal.append(UInt8(ascii: ",")) }
            isFirst = false
            guard var element else {
                literal.append(contentsOf: "NULL".utf8)
                continue
            }
            literal.append(UInt8(ascii: "\""))
            element.withUTF8 { bytes in
                var rest = bytes[...]
                // `"` and `\` are ASCII: no byte of another character's UTF-8 is either.
                while let special = rest.firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                    literal.append(contentsOf: rest[..<special])
                    literal.append(UInt8(ascii: "\\"))
                    literal.append(rest[special])
                    rest = rest[(special + 1)...]
                }
                literal.append(contentsOf: rest)
            }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }

    package static func encode<Integer: BinaryInteger>(_ elements: some Sequence<Integer>) -> String {
        "{" + elements.map { String($0) }.joined(separator: ",") + "}"
    }
}
