import Glibc
import TripsFormats

/// A statement's parameters as Bind carries them, in text format but for arrays of texts
/// given as bytes (`appendArray(count:utf8:)`, binary): each value's byte count (-1: NULL) and
/// its bytes, written once, as the caller makes them.
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
    /// Each value's format as Bind names it (0 text, 1 binary); empty while every value is text.
    package private(set) var formats: [UInt16] = []
    /// Why Bind cannot send these values, found as they were written: the first value that
    /// holds a NUL (a text cannot carry one, in either format), or is over 2 GiB.
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
            finishValue(length: 0, holdsNUL: false)
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

    /// A `text[]` of the `count` texts `element` gives as their UTF-8 bytes (JSON documents
    /// this process wrote), in binary format (`array_send`'s layout): a header, then each
    /// element's byte count and bytes as they are. Not made a `String` first (which checked
    /// every byte, then copied them), nor escaped: JSON has a quote every few bytes, each a
    /// backslash more to write here and to read past in the server's `array_in`.
    /// https://www.postgresql.org/docs/current/protocol-message-formats.html (Bind)
    package mutating func appendArray(count: Int, utf8 element: (Int) -> [UInt8]) {
        let texts = (0..<count).map(element)
        // A NUL in a text is what the server refuses (the header's zeros are its format's).
        let holdsNUL = texts.contains { text in text.withUnsafeBytes { $0.baseAddress.map { memchr($0, 0, text.count) != nil } ?? false } }
        appendValue(capacity: texts.reduce(Self.arrayHeader) { $0 + 4 + $1.count }, format: .binary(holdsNUL: holdsNUL)) { room in
            // One dimension (none when empty, as `array_send` writes it), no NULLs, elements of
            // type text, `count` of them from index 1.
            room.putInt32(count == 0 ? 0 : 1)
            room.putInt32(0)
            room.putInt32(Self.textType)
            if count > 0 {
                room.putInt32(Int32(clamping: count))
                room.putInt32(1)
            }
            for text in texts {
                assert(String(validating: text, as: UTF8.self) != nil, "appendArray(count:utf8:) takes UTF-8 text")
                room.putInt32(Int32(clamping: text.count))
                text.withUnsafeBufferPointer { room.put($0) }
            }
        }
    }

    /// A binary array's header: its dimensions, flags and element type, one dimension's size
    /// and lower bound, four bytes each.
    private static let arrayHeader = 20
    /// The type OID of `text`.
    private static let textType: Int32 = 25

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

    /// How a value goes: as text, which must hold no NUL; or binary, whose zeros are the
    /// format's, and whose writer says whether a text in it holds one.
    private enum Format {
        case text
        case binary(holdsNUL: Bool)
    }

    /// One value that `write` puts in place, in room for `capacity` bytes that it may grow;
    /// its count is filled in, and what it holds checked, once it is written.
    private mutating func appendValue(capacity: Int, format: Format = .text, _ write: (inout Room) -> Void) {
        let start = encoded.count
        var room = Room(taking: &encoded, capacity: 4 + capacity)
        room.end = start + 4
        write(&room)
        let end = room.end
        room.give(back: &encoded)
        let length = end - (start + 4)
        let holdsNUL = encoded.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: Int32(truncatingIfNeeded: length).bigEndian, toByteOffset: start, as: Int32.self)
            switch format {
            case .text: return memchr(bytes.baseAddress! + start + 4, 0, length) != nil
            case .binary(let holdsNUL): return holdsNUL
            }
        }
        let isBinary = if case .binary = format { true } else { false }
        finishValue(length: length, holdsNUL: holdsNUL, binary: isBinary)
    }

    /// Counts the value just written and its format, and notes why Bind cannot send it, if it
    /// cannot.
    private mutating func finishValue(length: Int, holdsNUL: Bool, binary: Bool = false) {
        if refusal == nil, holdsNUL { refusal = .nulCharacter(in: .parameter(count)) }
        if refusal == nil, length > Int(Int32.max) { refusal = .messageTooLong(length: length) }
        if binary, formats.isEmpty { formats = Array(repeating: 0, count: count) }
        if binary || !formats.isEmpty { formats.append(binary ? 1 : 0) }
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

        /// A big-endian 32-bit integer, as the binary formats spell one.
        mutating func putInt32(_ value: Int32) {
            reserve(4)
            let start = end
            bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.bigEndian, toByteOffset: start, as: Int32.self) }
            end += 4
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
        /// every byte escaped. Both are ASCII: no byte of another character's UTF-8 is either.
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
