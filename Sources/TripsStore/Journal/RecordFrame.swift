import TripsPlatform

/// The framing of every record in the journal and the snapshot:
///
///     length  UInt32, little-endian: the payload's byte count
///     crc     UInt32, little-endian: CRC-32C of the four length bytes and the payload
///     payload `length` bytes (a JSON object)
///
/// The checksum covers the length, so a damaged length is caught like damaged data.
package enum RecordFrame {
    package static let headerLength = 8
    /// No record this service writes comes near this; a larger length is damage.
    package static let maximumPayloadLength = 64 << 20

    /// Appends one framed record to `buffer`.
    package static func append(payload: [UInt8], to buffer: inout [UInt8]) {
        let length = UInt32(payload.count)
        let lengthBytes = withUnsafeBytes(of: length.littleEndian) { Array($0) }
        var crc = lengthBytes.withUnsafeBytes { CRC32C.checksum($0) }
        crc = payload.withUnsafeBytes { CRC32C.checksum($0, continuing: crc) }
        buffer.append(contentsOf: lengthBytes)
        withUnsafeBytes(of: crc.littleEndian) { buffer.append(contentsOf: $0) }
        buffer.append(contentsOf: payload)
    }

    /// What sits at an offset of a file.
    package enum Reading: Equatable {
        /// A whole record whose checksum matches; the next one starts at `next`.
        case record(payload: Range<Int>, next: Int)
        /// The file ends before the record does.
        case incomplete
        /// The length is impossible or the checksum does not match.
        case damaged(String)
    }

    /// Reads the frame starting at `offset` (which must be below `bytes.count`).
    package static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Reading {
        guard bytes.count - offset >= headerLength else { return .incomplete }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        guard length <= maximumPayloadLength else { return .damaged("a record length of \(length) bytes is impossible") }
        let start = offset + headerLength
        guard bytes.count - start >= length else { return .incomplete }
        var crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 4]))
        crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]), continuing: crc)
        guard crc == stored else { return .damaged("the record's checksum does not match its contents") }
        return .record(payload: start..<start + length, next: start + length)
    }

    /// Whether a whole, valid record starts anywhere at or after `offset`: the test that
    /// tells damage in the middle of a file (refuse to start) from a torn tail (drop it).
    package static func containsRecord(_ bytes: UnsafeRawBufferPointer, after offset: Int) -> Bool {
        var candidate = offset
        while candidate + headerLength < bytes.count {
            // Every payload is a JSON object: skip offsets that cannot start one before checksumming.
            if bytes[candidate + headerLength] == UInt8(ascii: "{"), case .record = read(bytes, at: candidate) {
                return true
            }
            candidate += 1
        }
        return false
    }
}
