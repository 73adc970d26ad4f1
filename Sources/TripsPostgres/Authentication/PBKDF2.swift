import TripsPlatform

/// PBKDF2 with HMAC-SHA-256 (RFC 8018 §5.2): how SCRAM turns a password into SaltedPassword.
///
///     PBKDF2.deriveKey(password: Array("password".utf8), salt: Array("salt".utf8), iterations: 4096, byteCount: 32)
///     // c5e478d5 9288c841 aa530db6 845c4c8d 962893a0 01ce4e11 a4963873 aa98134a
///
/// The work grows with `iterations` on purpose (PostgreSQL's default is 4096); each
/// iteration is two SHA-256 compressions with no allocation, through `HMAC.Key`.
///
/// https://www.rfc-editor.org/rfc/rfc8018#section-5.2
package enum PBKDF2 {
    /// The first `byteCount` bytes of T_1 || T_2 || …, where T_i is the XOR of U_1…U_c,
    /// U_1 = HMAC(P, S || INT(i)) and U_j = HMAC(P, U_{j-1}).
    ///
    /// - Precondition: `iterations` and `byteCount` are at least 1; callers check values
    ///   that come from a server first.
    /// - Complexity: O(`iterations` × ⌈`byteCount` / 32⌉) compressions.
    static func deriveKey(password: some Sequence<UInt8>, salt: some Sequence<UInt8>, iterations: Int, byteCount: Int) -> [UInt8] {
        precondition(iterations >= 1, "PBKDF2 needs at least one iteration")
        precondition(byteCount >= 1 && byteCount / SHA256.digestByteCount < Int(UInt32.max), "PBKDF2 key length out of range")
        let key = HMAC.Key(password)
        let salt = Array(salt)
        var derived: [UInt8] = []
        derived.reserveCapacity(byteCount + SHA256.digestByteCount)
        var blockIndex: UInt32 = 1
        while derived.count < byteCount {
            var first = HMAC(key: key)
            first.update(salt)
            withUnsafeBytes(of: blockIndex.bigEndian) { first.update($0) }
            var u = SHA256.State(digest: first.finalize())
            var t = u
            var iteration = 1
            while iteration < iterations {
                u = key.authenticationCode(ofDigest: u)
                t.formExclusiveOr(u)
                iteration += 1
            }
            derived.append(contentsOf: t.bytes)
            blockIndex += 1
        }
        return Array(derived.prefix(byteCount))
    }
}

extension SHA256.State {
    /// The state whose `bytes` are `digest` (32 bytes), so that PBKDF2 can iterate on words.
    fileprivate init(digest: [UInt8]) {
        precondition(digest.count == SHA256.digestByteCount)
        func word(_ index: Int) -> UInt32 {
            digest.withUnsafeBytes { UInt32(bigEndian: $0.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)) }
        }
        self.init(h0: word(0), h1: word(1), h2: word(2), h3: word(3), h4: word(4), h5: word(5), h6: word(6), h7: word(7))
    }

    /// T ^= U, word by word: XOR on the words is XOR on the digest bytes.
    fileprivate mutating func formExclusiveOr(_ other: Self) {
        h0 ^= other.h0
        h1 ^= other.h1
        h2 ^= other.h2
        h3 ^= other.h3
        h4 ^= other.h4
        h5 ^= other.h5
        h6 ^= other.h6
        h7 ^= other.h7
    }
}
