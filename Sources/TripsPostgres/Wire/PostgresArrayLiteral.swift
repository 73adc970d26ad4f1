/// PostgreSQL's text form of a one-dimensional array, `{"a","b \"c\"",NULL}`: how a list of
/// values travels as one bound parameter (`$1::text[]`, `unnest($1::bigint[])`), so that a
/// statement touching k rows is one round trip and still no SQL is built from data.
///
/// Every element is quoted, with `"` and `\` escaped by a backslash, which is right for
/// every element type; nil is `NULL`.
/// https://www.postgresql.org/docs/current/arrays.html#ARRAYS-IO
package enum PostgresArrayLiteral {
    package static func encode(_ elements: [String?]) -> String {
        // Written straight into the string's storage, sized for the worst case (every byte
        // escaped): a transaction's rows, records and events go through here, and JSON has a
        // quote every few bytes, so appending the runs between them to an array cost more
        // than the bytes themselves. Not generic: over `some Sequence` each element came
        // through a witness call from another module.
        let capacity = elements.reduce(2) { $0 + 1 + ($1.map { $0.utf8.count * 2 + 2 } ?? 4) }
        return String(unsafeUninitializedCapacity: capacity) { output in
            var end = 0
            output[end] = UInt8(ascii: "{")
            end += 1
            for index in elements.indices {
                if index > 0 {
                    output[end] = UInt8(ascii: ",")
                    end += 1
                }
                guard var element = elements[index] else {
                    for byte in "NULL".utf8 {
                        output[end] = byte
                        end += 1
                    }
                    continue
                }
                output[end] = UInt8(ascii: "\"")
                end += 1
                element.withUTF8 { bytes in
                    // `"` and `\` are ASCII: no byte of another character's UTF-8 is either.
                    for byte in bytes {
                        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                            output[end] = UInt8(ascii: "\\")
                            end += 1
                        }
                        output[end] = byte
                        end += 1
                    }
                }
                output[end] = UInt8(ascii: "\"")
                end += 1
            }
            output[end] = UInt8(ascii: "}")
            return end + 1
        }
    }

    package static func encode(_ elements: [Int]) -> String { integers(elements) }
    package static func encode(_ elements: [Int64]) -> String { integers(elements) }
    package static func encode(_ elements: [UInt64]) -> String { integers(elements) }

    /// `{3,-1,0}`, the digits written straight into the string: ids, versions and position
    /// keys go through here for every row a transaction writes, and `String($0)` over any
    /// `BinaryInteger` from another module cost thousands of instructions a literal.
    private static func integers<Integer: FixedWidthInteger>(_ elements: [Integer]) -> String {
        // A sign and the 20 digits of UInt64.max, and a comma, at most per element.
        String(unsafeUninitializedCapacity: 2 + elements.count * 22) { output in
            var end = 0
            output[end] = UInt8(ascii: "{")
            end += 1
            for index in elements.indices {
                if index > 0 {
                    output[end] = UInt8(ascii: ",")
                    end += 1
                }
                let element = elements[index]
                if element < 0 {
                    output[end] = UInt8(ascii: "-")
                    end += 1
                }
                var magnitude = UInt64(element.magnitude)
                let first = end
                repeat {
                    output[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                    end += 1
                } while magnitude > 0
                output[first..<end].reverse()
            }
            output[end] = UInt8(ascii: "}")
            return end + 1
        }
    }
}
