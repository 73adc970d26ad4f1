import Glibc
import TripsFormats

/// A statement's parameters as Bind carries them, in text format: each value's byte count
/// (-1: NULL) and its bytes, written once, as the caller makes them.
///
/// A batch's columns go in as array literals written in place (`appendArray`): a create's
/// transaction binds some twenty of them, and making each a `String` first (from an array of
/// the column's values), then copying it into the message, cost two allocations, a copy and a
/// NUL scan apiece.
package struct PostgresParameters: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// How many values.
    package private(set) var count = 0
    /// Every value as Bind sends it: a big-endian 32-bit count of bytes (-1: NULL), the bytes.
    package private(set) var encoded: [UInt8] = []
    /// Why Bind cannot send these values, found as they were written: the first value that
    /// holds a NUL (text format cannot carry one), or is over 2 GiB.
    package private(set) var refusal: PostgresEncodingError?

    package init() {}

    package init(_ values: [String?]) {
        // Room for exactly these values: a statement's few small ones (a revision, a name)
        // would otherwise take the room a batch's literals start with.
        encoded.reserveCapacity(values.reduce(0) { $0 + 4 + ($1?.utf8.count ?? 0) })
        for value in values { append(value) }
    }

    package init(arrayLiteral values: String?...) {
        self.init(values)
    }

    /// One value; nil is NULL.
    package mutating func append(_ value: String?) {
        guard var value else {
            encoded.append(contentsOf: repeatElement(0xFF, count: 4))  // -1
            count += 1
            return
        }
        // Appended as it is: no room to make and trim for a value whose length is known.
        value.withUTF8 { bytes in
            withUnsafeBytes(of: Int32(truncatingIfNeeded: bytes.count).bigEndian) { encoded.append(contentsOf: $0) }
            encoded.append(contentsOf: bytes)
            let holdsNUL = bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false
            finishValue(length: bytes.count, holdsNUL: holdsNUL)
        }
    }

    /// PostgreSQL's text form of a one-dimensional array, `{"a","b \"c\"",NULL}`, of the
    /// `count` strings `element` gives (nil: NULL): how a column of a batch's rows travels as
    /// one parameter (`unnest($1::text[])`), so that a statement touching k rows is one round
    /// trip and still no SQL is built from data.
    ///
    /// Every element is quoted, with `"` and `\` escaped by a backslash, which is right for
    /// every element type. https://www.postgresql.org/docs/current/arrays.html#ARRAYS-IO
    package mutating func appendArray(count: Int, _ element: (Int) -> String?) {
        appendLiteral(count: count) { index, literal in
            guard var text = element(index) else { return literal.put("NULL") }
            literal.put(UInt8(ascii: "\""))
            text.withUTF8 { literal.putEscaped($0) }
            literal.put(UInt8(ascii: "\""))
        }
    }

    /// The same literal of the `count` texts `element` gives as their UTF-8 bytes (a JSON
    /// document this process wrote): escaped as they are, not made a `String` first (which
    /// checked every byte, then copied them).
    package mutating func appendArray(count: Int, utf8 element: (Int) -> [UInt8]) {
        appendLiteral(count: count) { index, literal in
            let text = element(index)
            assert(String(validating: text, as: UTF8.self) != nil, "appendArray(count:utf8:) takes UTF-8 text")
            literal.put(UInt8(ascii: "\""))
            text.withUnsafeBufferPointer { literal.putEscaped($0) }
            literal.put(UInt8(ascii: "\""))
        }
    }

    /// `{3,-1,0}`, of the `count` integers `element` gives.
    package mutating func appendArray(count: Int, _ element: (Int) -> Int) {
        appendLiteral(count: count) { index, literal in literal.putInteger(element(index)) }
    }

    package mutating func appendArray(_ elements: [Int]) {
        appendArray(count: elements.count) { elements[$0] }
    }

    package mutating func appendArray(_ elements: [Int64]) {
        appendArray(count: elements.count) { Int(elements[$0]) }
    }

    package mutating func appendArray(_ elements: [UInt64]) {
        appendLiteral(count: elements.count) { index, literal in
            // Past `Int` (and so past `bigint`, which the database refuses) through `String`.
            guard let value = Int(exactly: elements[index]) else {
                var digits = String(elements[index])
                return digits.withUTF8 { literal.put($0) }
            }
            literal.putInteger(value)
        }
    }

    package mutating func appendArray(_ elements: [String?]) {
        appendArray(count: elements.count) { elements[$0] }
    }

    /// `{`, the `count` elements `element` writes with commas between, and `}`, as one value,
    /// in room made for integers (a sign, 19 digits and a comma each): text grows it as it goes.
    private mutating func appendLiteral(count: Int, _ element: (Int, inout Room) -> Void) {
        appendValue(capacity: 2 + count * 22) { room in
            room.put(UInt8(ascii: "{"))
            for index in 0..<count {
                if index > 0 { room.put(UInt8(ascii: ",")) }
                element(index, &room)
            }
            room.put(UInt8(ascii: "}"))
        }
    }

    /// One value that `write` puts in place, in room for `capacity` bytes that it may grow;
    /// its count is filled in, and what it holds checked, once it is written.
    private mutating func appendValue(capacity: Int, _ write: (inout Room) -> Void) {
        let start = encoded.count
        var room = Room(taking: &encoded, capacity: 4 + capacity)
        room.end = start + 4
        write(&room)
        let end = room.end
        room.give(back: &encoded)
        let length = end - (start + 4)
        let holdsNUL = encoded.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: Int32(truncatingIfNeeded: length).bigEndian, toByteOffset: start, as: Int32.self)
            return memchr(bytes.baseAddress! + start + 4, 0, length) != nil
        }
        finishValue(length: length, holdsNUL: holdsNUL)
    }

    /// Counts the value just written, and notes why Bind cannot send it, if it cannot.
    private mutating func finishValue(length: Int, holdsNUL: Bool) {
        if refusal == nil, holdsNUL { refusal = .nulCharacter(in: .parameter(count)) }
        if refusal == nil, length > Int(Int32.max) { refusal = .messageTooLong(length: length) }
        count += 1
    }

    /// The bytes being written, with zeroed room past `end` that grows when asked: values are
    /// written by index, not appended a byte at a time (an append checks capacity and
    /// uniqueness each time: a literal's whole cost).
    fileprivate struct Room {
        private var bytes: [UInt8]
        /// Where the next byte goes.
        var end = 0

        /// Holds `encoded` (moved, not copied) with room for `capacity` more bytes.
        init(taking encoded: inout [UInt8], capacity: Int) {
            bytes = []
            swap(&bytes, &encoded)
            // A statement's first value makes room for a few: a batch's parameters are a few
            // hundred bytes, grown to from nothing one reallocation at a time otherwise.
            if bytes.capacity == 0 { bytes.reserveCapacity(Self.firstCapacity) }
            bytes.appendZeros(capacity)
        }

        private static let firstCapacity = 1024

        /// Gives the bytes back to `encoded`, up to `end`.
        mutating func give(back encoded: inout [UInt8]) {
            bytes.removeLast(bytes.count - end)
            swap(&bytes, &encoded)
        }

        /// Makes sure `count` more bytes fit. The array's capacity grows geometrically by
        /// itself; the zeros written are what is asked for, and a little more.
        mutating func reserve(_ count: Int) {
            let missing = end + count - bytes.count
            guard missing > 0 else { return }
            bytes.appendZeros(max(missing, 256))
        }

        mutating func put(_ byte: UInt8) {
            reserve(1)
            bytes[end] = byte
            end += 1
        }

        mutating func put(_ text: StaticString) {
            put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        mutating func put(_ source: UnsafeBufferPointer<UInt8>) {
            reserve(source.count)
            let start = end
            bytes.withUnsafeMutableBytes { room in
                UnsafeMutableRawBufferPointer(rebasing: room[start..<(start + source.count)]).copyMemory(
                    from: UnsafeRawBufferPointer(source))
            }
            end += source.count
        }

        /// `source` with a backslash before each `"` and `\`, in room for the worst case,
        /// every byte escaped (JSON has a quote every few bytes). Both are ASCII: no byte of
        /// another character's UTF-8 is either.
        mutating func putEscaped(_ source: UnsafeBufferPointer<UInt8>) {
            reserve(source.count * 2)
            var end = self.end  // a local: the loop is the literal's whole cost
            bytes.withUnsafeMutableBufferPointer { output in
                for byte in source {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                        output[end] = UInt8(ascii: "\\")
                        end += 1
                    }
                    output[end] = byte
                    end += 1
                }
            }
            self.end = end
        }

        /// An integer in decimal, as `JSONWriter` spells one.
        mutating func putInteger(_ value: Int) {
            reserve(JSONWriter.maxDigits(width: 1))
            let start = end
            end += bytes.withUnsafeMutableBufferPointer { JSONWriter.writeDigits(value, width: 1, to: $0.baseAddress! + start) }
        }
    }
}
