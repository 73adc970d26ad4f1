/// SHA-256 (FIPS 180-4), the hash under SCRAM-SHA-256's HMAC and PBKDF2, and the fingerprint
/// of a request made with an `Idempotency-Key`.
///
///     SHA256.hash(Array("abc".utf8))
///     // ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad
///
/// Ours because Trips takes no packages. Feed it with `update(_:)` as bytes arrive, or hash
/// at once with `hash(_:)`. PBKDF2 calls the compression function directly (tens of
/// thousands of times a login), so that function allocates nothing.
///
/// https://csrc.nist.gov/pubs/fips/180-4/upd1/final
package struct SHA256: Sendable {
    /// Bytes in a digest.
    package static let digestByteCount = 32

    /// The eight chaining words H0…H7 between blocks (FIPS 180-4 §6.2).
    package struct State: Sendable, Hashable {
        package var h0: UInt32
        package var h1: UInt32
        package var h2: UInt32
        package var h3: UInt32
        package var h4: UInt32
        package var h5: UInt32
        package var h6: UInt32
        package var h7: UInt32

        package init(h0: UInt32, h1: UInt32, h2: UInt32, h3: UInt32, h4: UInt32, h5: UInt32, h6: UInt32, h7: UInt32) {
            (self.h0, self.h1, self.h2, self.h3, self.h4, self.h5, self.h6, self.h7) = (h0, h1, h2, h3, h4, h5, h6, h7)
        }

        /// H(0), FIPS 180-4 §5.3.3.
        package static let initial = State(
            h0: 0x6a09_e667, h1: 0xbb67_ae85, h2: 0x3c6e_f372, h3: 0xa54f_f53a,
            h4: 0x510e_527f, h5: 0x9b05_688c, h6: 0x1f83_d9ab, h7: 0x5be0_cd19
        )

        /// The digest: the words in big-endian order.
        package var bytes: [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(SHA256.digestByteCount)
            for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
                withUnsafeBytes(of: word.bigEndian) { bytes.append(contentsOf: $0) }
            }
            return bytes
        }

        /// Writes the words into the first eight places of `words`, as the next block's message words.
        package func store(into words: UnsafeMutableBufferPointer<UInt32>) {
            words[0] = h0
            words[1] = h1
            words[2] = h2
            words[3] = h3
            words[4] = h4
            words[5] = h5
            words[6] = h6
            words[7] = h7
        }
    }

    private var state: State
    private var buffer: HashBlockBuffer

    package init() {
        self.init(resuming: .initial, afterCompressing: 0)
    }

    /// Continues a hash whose first `byteCount` bytes (whole blocks) left `state`: HMAC keeps
    /// the state after its key block and resumes from it for every message.
    package init(resuming state: State, afterCompressing byteCount: UInt64) {
        self.state = state
        self.buffer = HashBlockBuffer(afterCompressing: byteCount)
    }

    /// Hashes more of the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(bytes) { Self.compress(&state, blocks: $0) }
    }

    /// The digest of everything given so far; the hash itself can go on.
    package func finalize() -> [UInt8] {
        var state = state
        buffer.finalBlocks(lengthIsBigEndian: true).withUnsafeBytes { Self.compress(&state, blocks: $0) }
        return state.bytes
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalize()
    }

    /// Compresses whole 64-byte blocks into `state`.
    package static func compress(_ state: inout State, blocks: UnsafeRawBufferPointer) {
        precondition(blocks.count % HashBlockBuffer.blockByteCount == 0, "SHA-256 compresses whole blocks")
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            var offset = 0
            while offset < blocks.count {
                var t = 0
                while t < 16 {
                    schedule[t] = UInt32(bigEndian: blocks.loadUnaligned(fromByteOffset: offset + 4 * t, as: UInt32.self))
                    t += 1
                }
                compress(&state, schedule: schedule)
                offset += HashBlockBuffer.blockByteCount
            }
        }
    }

    /// Compresses one block given as its 16 message words in `schedule[0..<16]`; the rest of
    /// the 64 words are overwritten with the message schedule (FIPS 180-4 §6.2.2).
    ///
    /// Written with `while` loops and unsafe buffers because debug builds, which run the
    /// tests, call neither iterators nor array accessors cheaply.
    package static func compress(_ state: inout State, schedule w: UnsafeMutableBufferPointer<UInt32>) {
        var t = 16
        while t < 64 {
            let w15 = w[t - 15]
            let w2 = w[t - 2]
            let sigma0 = rotateRight(w15, 7) ^ rotateRight(w15, 18) ^ (w15 &>> 3)
            let sigma1 = rotateRight(w2, 17) ^ rotateRight(w2, 19) ^ (w2 &>> 10)
            w[t] = w[t - 16] &+ sigma0 &+ w[t - 7] &+ sigma1
            t += 1
        }
        var a = state.h0
        var b = state.h1
        var c = state.h2
        var d = state.h3
        var e = state.h4
        var f = state.h5
        var g = state.h6
        var h = state.h7
        roundConstants.withUnsafeBufferPointer { k in
            var t = 0
            while t < 64 {
                let sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
                let choice = (e & f) ^ (~e & g)
                let t1 = h &+ sum1 &+ choice &+ k[t] &+ w[t]
                let sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let t2 = sum0 &+ majority
                h = g
                g = f
                f = e
                e = d &+ t1
                d = c
                c = b
                b = a
                a = t1 &+ t2
                t += 1
            }
        }
        state.h0 &+= a
        state.h1 &+= b
        state.h2 &+= c
        state.h3 &+= d
        state.h4 &+= e
        state.h5 &+= f
        state.h6 &+= g
        state.h7 &+= h
    }

    @inline(__always)
    private static func rotateRight(_ word: UInt32, _ count: UInt32) -> UInt32 {
        (word &>> count) | (word &<< (32 &- count))
    }

    /// K(0)…K(63), FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube
    /// roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension SHA256: BlockHash {}
