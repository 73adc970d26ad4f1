/// PostgreSQL's text form of a one-dimensional array, `{"a","b \"c\"",NULL}`: how a list of
/// values travels as one bound parameter (`$1::text[]`, `unnest($1::bigint[])`), so that a
/// statement touching k rows is one round trip and still no SQL is built from data.
///
/// Every element is quoted, with `"` and `\` escaped by a backslash, which is right for
/// every element type; nil is `NULL`.
/// https://www.postgresql.org/docs/current/arrays.html#ARRAYS-IO
package enum PostgresArrayLiteral {
    package static func encode(_ elements: [String?]) -> String {
        // Built as UTF-8 bytes, copying the runs between the characters to escape whole: a
        // transaction's rows, records and events go through here, and a `String` grown a
        // scalar at a time took a seventh of a writing instance's time. Not generic: over
        // `some Sequence` each element was fetched through a witness call from another module.
        var literal: [UInt8] = []
        literal.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        literal.append(UInt8(ascii: "{"))
        for index in elements.indices {
            if index > 0 { literal.append(UInt8(ascii: ",")) }
            guard var element = elements[index] else {
                literal.append(contentsOf: "NULL".utf8)
                continue
            }
            literal.append(UInt8(ascii: "\""))
            element.withUTF8 { appendEscaped($0, to: &literal) }
            literal.append(UInt8(ascii: "\""))
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }

    /// `bytes` with a backslash before each `"` and `\`. Both are ASCII: no byte of another
    /// character's UTF-8 is either.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to literal: inout [UInt8]) {
        var runStart = 0
        for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "\\") {
            literal.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            literal.append(UInt8(ascii: "\\"))
            runStart = index
        }
        literal.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }

    package static func encode<Integer: BinaryInteger>(_ elements: some Sequence<Integer>) -> String {
        "{" + elements.map { String($0) }.joined(separator: ",") + "}"
    }
}
