internal import CZlib

/// The gzip format (RFC 1952) made by the system's zlib: what HTTP's `gzip` content coding
/// sends (RFC 9110 §8.4.1.3).
///
///     let packed = Gzip.compress(Array(json.utf8), level: 3)  // 1f 8b 08 …, or nil
///
/// Each call sets up a stream of its own and frees it (`deflateInit2` … `deflateEnd`): keeping
/// one per event loop thread and resetting it saved about 1% of the instructions of a 1 KiB
/// body (both clear the same 64 KiB hash table), not worth a stream tied to a thread.
package enum Gzip {
    /// zlib's levels run from 1 (fastest) to 9 (smallest).
    package static let levels: ClosedRange<Int32> = 1...9

    /// `bytes` in the gzip format, compressed at `level` (clamped to `levels`), or nil when
    /// zlib cannot (it failed to allocate its tables, or `bytes` is 2 GiB or more, past
    /// what one call's 32-bit counts hold).
    ///
    /// The output is sized once by `deflateBound` (the most any input of that length can
    /// take, a few bytes over the input when it does not compress), so one `deflate` call
    /// finishes the stream and no buffer ever grows.
    /// - Complexity: O(n) in `bytes.count`.
    package static func compress(_ bytes: [UInt8], level: Int32) -> [UInt8]? {
        guard bytes.count < 1 << 31 else { return nil }
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer (CRC-32, length) around the deflate data;
        // memLevel 8, zlib's default.
        let windowBitsForGzip: Int32 = 15 + 16
        let initialized = deflateInit2_(
            &stream, min(max(level, levels.lowerBound), levels.upperBound), Z_DEFLATED, windowBitsForGzip, 8, Z_DEFAULT_STRATEGY,
            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard initialized == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(bytes.count)))
        var finished = false
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, written in
            bytes.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(buffer.count)
                finished = deflate(&stream, Z_FINISH) == Z_STREAM_END
            }
            written = finished ? Int(stream.total_out) : 0
        }
        return finished ? output : nil
    }
}
