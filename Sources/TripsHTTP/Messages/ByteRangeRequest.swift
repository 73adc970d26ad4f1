/// What a `Range` field asks of a representation of a known length (RFC 9110 §14): all of it,
/// one part of it (206), or nothing it has (416).
///
/// One range is served. A field that lists several, uses another unit, or is malformed is
/// ignored and the whole representation is sent, which §14.2 allows ("a server MAY ignore the
/// Range header field"): a photo is small enough that one more round trip for a second range
/// is cheaper than multipart/byteranges, and ignoring them closes the overlapping-ranges
/// amplification §15.5.17 warns of.
package enum ByteRangeRequest: Sendable, Equatable {
    case whole
    /// The bytes at these offsets, both ends included.
    case part(ClosedRange<Int>)
    /// The range starts at or past the end (or asks for the last 0 bytes).
    case unsatisfiable

    /// The longest field value read: a single range needs two numbers, not kilobytes.
    static let maxFieldLength = 200

    /// Reads the `Range` values of a request for a representation of `length` bytes.
    package init(_ values: [String], length: Int) {
        guard values.count == 1, values[0].utf8.count <= Self.maxFieldLength,
            let (first, last) = Self.single(values[0])
        else {
            self = .whole
            return
        }
        switch (first, last) {
        case (nil, let suffix?):
            guard suffix > 0, length > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(max(0, length - suffix)...(length - 1))
        case (let start?, let end):
            guard start < length else {
                self = .unsatisfiable
                return
            }
            self = .part(start...min(end ?? (length - 1), length - 1))
        case (nil, nil):
            self = .whole
        }
    }

    /// `bytes=first-last`, `bytes=first-` or `bytes=-suffix` (the unit in any case, optional
    /// whitespace around the range); nil for anything else, including a list or
    /// `last < first` (invalid, §14.1.1).
    private static func single(_ value: String) -> (first: Int?, last: Int?)? {
        let bytes = Array(value.utf8)
        let unit = Array("bytes=".utf8)
        guard bytes.count > unit.count, bytes.prefix(unit.count).elementsEqual(unit, by: { lowercased($0) == $1 }) else {
            return nil
        }
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var spec = bytes[unit.count...].drop(while: isSpace)
        while let last = spec.last, isSpace(last) { spec = spec.dropLast() }
        guard let dash = spec.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let firstDigits = spec[..<dash]
        let lastDigits = spec[(dash + 1)...]
        let first = firstDigits.isEmpty ? nil : number(firstDigits)
        let last = lastDigits.isEmpty ? nil : number(lastDigits)
        guard firstDigits.isEmpty || first != nil, lastDigits.isEmpty || last != nil, first != nil || last != nil else {
            return nil
        }
        if let first, let last, last < first { return nil }
        return (first, last)
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        digits.withUnsafeBytes { decimalValue($0) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
