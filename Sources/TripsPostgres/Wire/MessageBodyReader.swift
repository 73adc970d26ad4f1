import Glibc
import TripsFormats

/// Reads the fields of one message body, never past its end.
///
/// Every read checks the bytes left first and throws `truncated` (or `unterminatedString`)
/// for the message's kind, so a lying count or length cannot make it read out of bounds.
/// It lives only inside the decoder's `withUnsafeBytes`, which keeps `body` valid.
struct MessageBodyReader {
    private let body: UnsafeRawBufferPointer
    /// Where the next read starts in the body.
    private(set) var offset = 0
    let kind: BackendMessage.Kind

    init(_ body: UnsafeRawBufferPointer, kind: BackendMessage.Kind) {
        self.body = body
        self.kind = kind
    }

    /// Bytes not read yet.
    var remaining: Int { body.count - offset }

    mutating func uint8() throws(PostgresWireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(kind) }
        defer { offset += 1 }
        return body[offset]
    }

    mutating func int16() throws(PostgresWireError) -> Int16 {
        Int16(bitPattern: try bigEndian(UInt16.self))
    }

    mutating func int32() throws(PostgresWireError) -> Int32 {
        Int32(bitPattern: try bigEndian(UInt32.self))
    }

    mutating func uint32() throws(PostgresWireError) -> UInt32 {
        try bigEndian(UInt32.self)
    }

    /// The next integer of `Integer`'s width, in network byte order; one load (a row's values
    /// each start with one, a million rows at a store's start-up).
    private mutating func bigEndian<Integer: FixedWidthInteger>(_: Integer.Type) throws(PostgresWireError) -> Integer {
        let byteCount = MemoryLayout<Integer>.size
        guard remaining >= byteCount else { throw .truncated(kind) }
        defer { offset += byteCount }
        return Integer(bigEndian: body.loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }

    /// The next `count` bytes.
    mutating func bytes(_ count: Int) throws(PostgresWireError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated(kind) }
        defer { offset += count }
        return Array(body[offset..<offset + count])
    }

    /// Steps over the next `count` bytes.
    mutating func skip(_ count: Int) throws(PostgresWireError) {
        guard count >= 0, remaining >= count else { throw .truncated(kind) }
        offset += count
    }

    /// Every byte not read yet.
    mutating func rest() -> [UInt8] {
        defer { offset = body.count }
        return Array(body[offset...])
    }

    /// A NUL-terminated string of UTF-8. Every answer's tag is one, and a row description's
    /// column names: read through `UTF8Text`, not the generic `String(validating:as:)`, which
    /// cost a thousand instructions each.
    mutating func string() throws(PostgresWireError) -> String {
        let rest = UnsafeRawBufferPointer(rebasing: body[offset...])
        guard let base = rest.baseAddress, let nul = memchr(base, 0, rest.count) else { throw .unterminatedString(kind) }
        let length = UnsafeRawPointer(nul) - base
        offset += length + 1
        guard let text = UTF8Text.string(UnsafeRawBufferPointer(rebasing: rest[..<length])) else { throw .invalidUTF8(kind) }
        return text
    }

    /// A 16-bit count of items that follow; a negative count is refused.
    mutating func count() throws(PostgresWireError) -> Int {
        let count = Int(try int16())
        guard count >= 0 else { throw .invalidCount(kind, count: count) }
        return count
    }

    /// Refuses bytes left after the last field.
    func finish() throws(PostgresWireError) {
        guard remaining == 0 else { throw .trailingBytes(kind, count: remaining) }
    }
}
