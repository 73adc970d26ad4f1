/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum iSCSI, ext4 and
/// many logs use for records.
///
///     CRC32C.checksum(Array("123456789".utf8))  // 0xE3069283
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        return value
    }

    /// Continues a checksum (start with 0) over more bytes.
    /// - Complexity: O(n) in `bytes.count`, one table lookup per byte.
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            var crc = ~previous
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            return ~crc
        }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
