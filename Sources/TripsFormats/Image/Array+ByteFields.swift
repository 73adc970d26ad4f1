/// Fixed-width fields of an image file, read with every offset checked: nil past the end,
/// never a trap, whatever the file says.
extension [UInt8] {
    /// The unsigned big-endian integer of `width` bytes (at most 4) at `offset`.
    func bigEndian(_ width: Int, at offset: Int) -> Int? {
        guard hasBytes(width, at: offset) else { return nil }
        var value = 0
        for index in offset..<offset + width { value = value << 8 | Int(self[index]) }
        return value
    }

    /// The unsigned little-endian integer of `width` bytes (at most 4) at `offset`.
    func littleEndian(_ width: Int, at offset: Int) -> Int? {
        guard hasBytes(width, at: offset) else { return nil }
        var value = 0
        for index in (offset..<offset + width).reversed() { value = value << 8 | Int(self[index]) }
        return value
    }

    /// Whether `count` bytes start at `offset`; written so that no sum can overflow.
    func hasBytes(_ count: Int, at offset: Int) -> Bool {
        offset >= 0 && count >= 0 && offset <= self.count && count <= self.count - offset
    }

    /// Whether the bytes at `offset` are `expected`, as in a signature or a chunk type.
    func matches(_ expected: some Collection<UInt8>, at offset: Int) -> Bool {
        hasBytes(expected.count, at: offset) && self[offset..<offset + expected.count].elementsEqual(expected)
    }
}
