import TripsCRC32C

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum iSCSI, ext4 and
/// many logs use for records: by the processor's instruction where it has one (SSE 4.2,
/// `TripsCRC32C`), otherwise from tables.
///
///     CRC32C.checksum(Array("123456789".utf8))  // 0xE3069283
package enum CRC32C {
    /// Checked once: every x86-64 processor since 2008 has it.
    static let hasInstruction = trips_crc32c_hardware_available() != 0

    /// Continues a checksum (start with 0) over more bytes.
    /// - Complexity: O(n) in `bytes.count`.
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        guard hasInstruction else { return checksumFromTables(bytes, continuing: previous) }
        return ~trips_crc32c_hardware(~previous, bytes.baseAddress, bytes.count)
    }

    /// Slicing-by-8 (Intel's method): `tables[k][b]` is the CRC of byte `b` followed by `k`
    /// zero bytes, so eight bytes are folded with eight lookups and no dependency between
    /// them; about four times the speed of a byte at a time, which start-up feels when it
    /// checks a snapshot of a million trips.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
            tables[index] = value
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// `checksum` without the instruction: what a processor without it runs, and what the
    /// tests hold the instruction's answers to.
    static func checksumFromTables(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc = ~previous
            var index = bytes.startIndex
            while bytes.endIndex - index >= 8 {
                let low = crc ^ bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian
                let high = bytes.loadUnaligned(fromByteOffset: index + 4, as: UInt32.self).littleEndian
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < bytes.endIndex {
                crc = table[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
            return ~crc
        }
    }

    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
