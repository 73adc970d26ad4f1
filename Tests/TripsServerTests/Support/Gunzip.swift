import CZlib

/// What a gzip-compressed body holds, inflated by the system's zlib: the tests check that
/// the server's gzip decodes to exactly the bytes it sends uncompressed. Nil when the bytes
/// are not one whole gzip member, or inflate to more than `limit` bytes.
func gunzip(_ bytes: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
    var stream = z_stream()
    // windowBits 15 + 16: only the gzip format, not zlib's or raw deflate.
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    var input = bytes
    return input.withUnsafeMutableBufferPointer { input -> [UInt8]? in
        stream.next_in = input.baseAddress
        stream.avail_in = UInt32(input.count)
        while true {
            let result = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(buffer.count)
                return inflate(&stream, Z_NO_FLUSH)
            }
            output += chunk[0..<(chunk.count - Int(stream.avail_out))]
            guard output.count <= limit else { return nil }
            if result == Z_STREAM_END { return stream.avail_in == 0 ? output : nil }
            guard result == Z_OK else { return nil }
        }
    }
}
