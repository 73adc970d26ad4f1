/// The 64-byte blocks that SHA-256 and MD5 both cut their input into, and the padding both
/// end it with: 0x80, zeros, then the length in bits in 8 bytes (FIPS 180-4 §5.1.1,
/// RFC 1321 §3.1–3.2). The two differ only in the byte order of that length.
///
/// Holds fewer than 64 bytes between calls, in one array allocated once per hash.
package struct HashBlockBuffer: Sendable {
    /// Bytes in a block.
    package static let blockByteCount = 64

    /// Input not yet given to the compression function: fewer than 64 bytes.
    private var pending: [UInt8]
    /// Bytes taken so far, for the length in the padding.
    private(set) var byteCount: UInt64

    /// Starts after `byteCount` bytes already compressed (a multiple of 64: HMAC resumes
    /// from its precomputed key block this way).
    package init(afterCompressing byteCount: UInt64 = 0) {
        precondition(byteCount % UInt64(Self.blockByteCount) == 0, "only whole blocks can have been compressed")
        self.pending = []
        self.pending.reserveCapacity(Self.blockByteCount)
        self.byteCount = byteCount
    }

    /// Adds bytes, handing each block that fills up to `compress` (one or more whole blocks at once).
    package mutating func append(_ bytes: UnsafeRawBufferPointer, compress: (UnsafeRawBufferPointer) -> Void) {
        byteCount &+= UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = min(Self.blockByteCount - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(taken))
            rest = rest.dropFirst(taken)
            guard pending.count == Self.blockByteCount else { return }
            pending.withUnsafeBytes(compress)
            pending.removeAll(keepingCapacity: true)
        }
        let whole = rest.count - rest.count % Self.blockByteCount
        if whole > 0 { compress(UnsafeRawBufferPointer(rebasing: rest.prefix(whole))) }
        pending.append(contentsOf: rest.dropFirst(whole))
    }

    /// The last one or two blocks: what is pending, then the padding and the length.
    package func finalBlocks(lengthIsBigEndian: Bool) -> [UInt8] {
        let bitCount = byteCount &* 8
        var blocks = pending
        blocks.append(0x80)
        let paddedCount = blocks.count <= Self.blockByteCount - 8 ? Self.blockByteCount : 2 * Self.blockByteCount
        blocks.append(contentsOf: repeatElement(0, count: paddedCount - 8 - blocks.count))
        let length = lengthIsBigEndian ? bitCount.bigEndian : bitCount.littleEndian
        withUnsafeBytes(of: length) { blocks.append(contentsOf: $0) }
        return blocks
    }
}

/// A hash fed raw bytes (SHA-256, MD5); any sequence of bytes is fed through the same call.
package protocol BlockHash {
    mutating func update(_ bytes: UnsafeRawBufferPointer)
}

extension BlockHash {
    /// Hashes more of the message: in place when the bytes are contiguous, else from a copy.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if contiguous == nil {
            Array(bytes).withUnsafeBytes { update($0) }
        }
    }
}
