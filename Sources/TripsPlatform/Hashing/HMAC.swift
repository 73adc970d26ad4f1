/// HMAC-SHA-256 (RFC 2104): SCRAM's keyed hash, PBKDF2's pseudorandom function, and the
/// signature on a browser session's cookie.
///
///     HMAC.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
///     // 5bdcc146 bf60754e 6a042426 089575c7 5a003f08 9d273983 9dec58b9 64ec3843 (RFC 4231, case 2)
///
/// SHA-256 is the only hash PostgreSQL authentication and the sessions need, so it is the
/// only one here.
///
/// https://www.rfc-editor.org/rfc/rfc2104
package struct HMAC: Sendable {
    /// A key made ready once: the hash states after the inner and the outer key block.
    /// PBKDF2 authenticates thousands of messages under one key, and starting each from
    /// these states saves two of its four compressions.
    package struct Key: Sendable {
        fileprivate let innerState: SHA256.State
        fileprivate let outerState: SHA256.State

        package init(_ key: some Sequence<UInt8>) {
            var block = Array(key)
            // RFC 2104 §2: a key longer than a block is replaced by its hash; any key is then
            // padded with zeros to a block.
            if block.count > HashBlockBuffer.blockByteCount { block = SHA256.hash(block) }
            block.append(contentsOf: repeatElement(0, count: HashBlockBuffer.blockByteCount - block.count))
            var inner = SHA256.State.initial
            block.map { $0 ^ 0x36 }.withUnsafeBytes { SHA256.compress(&inner, blocks: $0) }
            var outer = SHA256.State.initial
            block.map { $0 ^ 0x5c }.withUnsafeBytes { SHA256.compress(&outer, blocks: $0) }
            self.innerState = inner
            self.outerState = outer
        }

        /// The code of a 32-byte message given as hash words: a PBKDF2 round, which
        /// authenticates the previous round's code. Two compressions, no allocation.
        package func authenticationCode(ofDigest digest: SHA256.State) -> SHA256.State {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                // Both hashes see a key block then 32 bytes, so both last blocks are the
                // digest, 0x80, zeros, and the length 96 bytes in bits.
                digest.store(into: schedule)
                schedule[8] = 0x8000_0000
                var word = 9
                while word < 15 {
                    schedule[word] = 0
                    word += 1
                }
                schedule[15] = UInt32(HashBlockBuffer.blockByteCount + SHA256.digestByteCount) * 8
                var inner = innerState
                SHA256.compress(&inner, schedule: schedule)
                // Compressing rewrote only the schedule's words 16…63.
                inner.store(into: schedule)
                var outer = outerState
                SHA256.compress(&outer, schedule: schedule)
                return outer
            }
        }
    }

    private var inner: SHA256
    private let outerState: SHA256.State

    package init(key: Key) {
        self.inner = SHA256(resuming: key.innerState, afterCompressing: UInt64(HashBlockBuffer.blockByteCount))
        self.outerState = key.outerState
    }

    package init(key: some Sequence<UInt8>) {
        self.init(key: Key(key))
    }

    /// Authenticates more of the message.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        inner.update(bytes)
    }

    /// The code (32 bytes) of everything given so far.
    package func finalize() -> [UInt8] {
        var outer = SHA256(resuming: outerState, afterCompressing: UInt64(HashBlockBuffer.blockByteCount))
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// The code (32 bytes) of `message` under `key`.
    package static func authenticationCode(for message: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        var hmac = HMAC(key: key)
        hmac.update(message)
        return hmac.finalize()
    }
}
