import Glibc

/// Bytes from the kernel's random source (getrandom(2), through getentropy(3)), for what no
/// one may guess: a browser session's id, and the key that signs it.
///
///     let id = try SecureRandom.bytes(32)  // 256 bits
package enum SecureRandom {
    /// `count` random bytes. getentropy takes at most 256 bytes a call, and waits only until
    /// the kernel's pool is first ready after boot.
    package static func bytes(_ count: Int) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var chunk = [UInt8](repeating: 0, count: 256)
        while bytes.count < count {
            let length = min(chunk.count, count - bytes.count)
            let result = chunk.withUnsafeMutableBytes { getentropy($0.baseAddress, length) }
            guard result == 0 else { throw SystemError(call: "getentropy", errno: errno) }
            bytes += chunk[..<length]
        }
        return bytes
    }
}
