import TripsPlatform

/// MD5 (RFC 1321). **Not secure**: collisions take seconds to make and a stolen md5
/// answer's inputs can be brute-forced. It is here only because PostgreSQL servers older
/// than 14 (and newer ones configured so) ask for `md5` password authentication; prefer
/// SCRAM-SHA-256 whenever the server offers it.
///
///     MD5.hash(Array("abc".utf8))  // 90015098 3cd24fb0 d6963f7d 28e17f72
///
/// https://www.rfc-editor.org/rfc/rfc1321
package struct MD5: Sendable {
    /// Bytes in a digest.
    static let digestByteCount = 16

    /// The chaining words A, B, C, D, set up as in RFC 1321 §3.3.
    private struct State {
        var a: UInt32 = 0x6745_2301
        var b: UInt32 = 0xefcd_ab89
        var c: UInt32 = 0x98ba_dcfe
        var d: UInt32 = 0x1032_5476
    }

    private var state = State()
    private var buffer = HashBlockBuffer()

    init() {}

    /// Hashes more of the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(bytes) { Self.compress(&state, blocks: $0) }
    }

    /// The digest of everything given so far; the hash itself can go on.
    func finalize() -> [UInt8] {
        var state = state
        buffer.finalBlocks(lengthIsBigEndian: false).withUnsafeBytes { Self.compress(&state, blocks: $0) }
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in [state.a, state.b, state.c, state.d] {
            withUnsafeBytes(of: word.littleEndian) { digest.append(contentsOf: $0) }
        }
        return digest
    }

    /// The digest of `bytes`.
    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hash = MD5()
        hash.update(bytes)
        return hash.finalize()
    }

    /// RFC 1321 §3.4: four rounds of sixteen steps on each block's little-endian words.
    private static func compress(_ state: inout State, blocks: UnsafeRawBufferPointer) {
        precondition(blocks.count % HashBlockBuffer.blockByteCount == 0, "MD5 compresses whole blocks")
        Self.sines.withUnsafeBufferPointer { sines in
            Self.shifts.withUnsafeBufferPointer { shifts in
                var offset = 0
                while offset < blocks.count {
                    var aa = state.a
                    var bb = state.b
                    var cc = state.c
                    var dd = state.d
                    var step = 0
                    while step < 64 {
                        let mixed: UInt32
                        let wordIndex: Int
                        switch step / 16 {
                        case 0:
                            mixed = (bb & cc) | (~bb & dd)
                            wordIndex = step
                        case 1:
                            mixed = (bb & dd) | (cc & ~dd)
                            wordIndex = (5 * step + 1) % 16
                        case 2:
                            mixed = bb ^ cc ^ dd
                            wordIndex = (3 * step + 5) % 16
                        default:
                            mixed = cc ^ (bb | ~dd)
                            wordIndex = (7 * step) % 16
                        }
                        let word = UInt32(littleEndian: blocks.loadUnaligned(fromByteOffset: offset + 4 * wordIndex, as: UInt32.self))
                        let sum = aa &+ mixed &+ sines[step] &+ word
                        let shift = shifts[step]
                        aa = dd
                        dd = cc
                        cc = bb
                        bb = bb &+ ((sum &<< shift) | (sum &>> (32 &- shift)))
                        step += 1
                    }
                    state.a &+= aa
                    state.b &+= bb
                    state.c &+= cc
                    state.d &+= dd
                    offset += HashBlockBuffer.blockByteCount
                }
            }
        }
    }

    /// T[1…64], RFC 1321 §3.4: the integer part of 2^32 × |sin(i)|.
    private static let sines: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]

    /// The left rotations of the 64 steps, RFC 1321 §3.4.
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]
}

extension MD5: BlockHash {}
