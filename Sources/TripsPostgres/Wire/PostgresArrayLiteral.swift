/// PostgreSQL's text form of a one-dimensional array, `{"a","b \"c\"",NULL}`: how a list of
/// values travels as one bound parameter (`$1::text[]`, `unnest($1::bigint[])`), so that a
/// statement touching k rows is one round trip and still no SQL is built from data.
///
/// Every element is quoted, with `"` and `\` escaped by a backslash, which is right for
/// every element type; nil is `NULL`.
/// https://www.postgresql.org/docs/current/arrays.html#ARRAYS-IO
package enum PostgresArrayLiteral {
    package static func encode(_ elements: [String?]) -> String {
        // Sized for the worst case, every byte escaped: JSON has a quote every few bytes, so
        // appending the runs between them to an array cost more than the bytes themselves.
        // Not generic: over `some Sequence` each element came through a witness call from
        // another module.
        let capacity = elements.reduce(2) { $0 + 1 + ($1.map { $0.utf8.count * 2 + 2 } ?? 4) }
        return literal(count: elements.count, capacity: capacity) { index, writer in
            guard var element = elements[index] else {
                for byte in "NULL".utf8 { writer.put(byte) }
                return
            }
            writer.put(UInt8(ascii: "\""))
            element.withUTF8 { writer.putEscaped($0) }
            writer.put(UInt8(ascii: "\""))
        }
    }

    package static func encode(_ elements: [Int]) -> String { integers(elements) }
    package static func encode(_ elements: [Int64]) -> String { integers(elements) }
    package static func encode(_ elements: [UInt64]) -> String { integers(elements) }

    /// `{3,-1,0}`: ids, versions and position keys go through here for every row a
    /// transaction writes, and `String($0)` over any `BinaryInteger` from another module cost
    /// thousands of instructions a literal.
    private static func integers<Integer: FixedWidthInteger>(_ elements: [Integer]) -> String {
        // A sign and the 20 digits of UInt64.max, and a comma, at most per element.
        literal(count: elements.count, capacity: 2 + elements.count * 22) { index, writer in
            let element = elements[index]
            if element < 0 { writer.put(UInt8(ascii: "-")) }
            writer.putDigits(of: UInt64(element.magnitude))
        }
    }

    /// `{`, the `count` elements `element` writes, with commas between, and `}`, written
    /// straight into the storage of a string of at most `capacity` bytes.
    private static func literal(count: Int, capacity: Int, _ element: (Int, inout Writer) -> Void) -> String {
        String(unsafeUninitializedCapacity: capacity) { output in
            var writer = Writer(output: output)
            writer.put(UInt8(ascii: "{"))
            for index in 0..<count {
                if index > 0 { writer.put(UInt8(ascii: ",")) }
                element(index, &writer)
            }
            writer.put(UInt8(ascii: "}"))
            return writer.end
        }
    }

    /// Where a literal is being written, and how far.
    private struct Writer {
        private let output: UnsafeMutableBufferPointer<UInt8>
        private(set) var end = 0

        init(output: UnsafeMutableBufferPointer<UInt8>) { self.output = output }

        mutating func put(_ byte: UInt8) {
            output[end] = byte
            end += 1
        }

        /// `bytes` with a backslash before each `"` and `\`. Both are ASCII: no byte of another
        /// character's UTF-8 is either.
        mutating func putEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
            var end = self.end  // a local: the loop is the literal's whole cost
            for byte in bytes {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    output[end] = UInt8(ascii: "\\")
                    end += 1
                }
                output[end] = byte
                end += 1
            }
            self.end = end
        }

        /// `value` in decimal.
        mutating func putDigits(of value: UInt64) {
            let first = end
            var rest = value
            repeat {
                put(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            } while rest > 0
            output[first..<end].reverse()  // written least significant first
        }
    }
}
