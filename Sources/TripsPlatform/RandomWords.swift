/// Random 64-bit words for ids that must not collide (trace and span ids), cheap enough for
/// every request: xoshiro256** seeded from the system's random source (`getrandom`), so a
/// request costs a few arithmetic instructions, not a system call.
///
/// Not for secrets: the words are unpredictable only to someone who never saw enough of
/// them. W3C Trace Context asks for ids unique across systems, which a 256-bit seed from the
/// kernel gives. https://prng.di.unimi.it/xoshiro256starstar.c
///
/// One per thread (an event loop's), never shared.
package struct RandomWords: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// Seeded from the system's random source.
    package init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: (system.next(), system.next(), system.next(), system.next()))
    }

    /// Seeded with `seed` (tests); an all-zero seed, the one state xoshiro never leaves, is
    /// replaced.
    package init(seed: (UInt64, UInt64, UInt64, UInt64)) {
        state = seed == (0, 0, 0, 0) ? (1, 2, 3, 4) : seed
    }

    /// The next word; any value, zero included.
    package mutating func next() -> UInt64 {
        let result = rotateLeft(state.1 &* 5, by: 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotateLeft(state.3, by: 45)
        return result
    }

    /// The next word that is not zero (an all-zero id is invalid in W3C Trace Context).
    package mutating func nextNonZero() -> UInt64 {
        while true {
            let word = next()
            if word != 0 { return word }
        }
    }

    private func rotateLeft(_ value: UInt64, by count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
