// The checks reach internal types through `@testable import`, which only a debug build
// (compiled for testing) allows; `scripts/checks/fuzz.sh` builds debug. A release build of every
// target still compiles, with a stub that refuses to run.
#if DEBUG
@testable import TripsPostgres

/// What a stream decoded into: each message with the bytes it took, then the error, if any;
/// without an error, how many bytes were left holding no whole message. (After an error, what
/// was left depends on how much had been read when the bad message was whole: not compared.)
private struct Outcome: Equatable {
    var messages: [BackendMessage] = []
    var consumed: [Int] = []
    var failure: PostgresWireError?
    var leftover = 0
}

/// A length limit small enough that fuzzed inputs reach it.
private let tinyLimit = 48

/// The first byte picks the length limit (bit 0) and seeds the split sizes; the rest is the
/// stream, as a server would send it.
///
/// Properties: no crash and no read out of bounds (the decoder reads through an
/// UnsafeRawBufferPointer; the sanitizer build checks every access); the stream gives the
/// same messages, the same consumed counts and the same error whether fed whole, in pieces of
/// random sizes, or a byte at a time; every message takes exactly 1 + its declared length,
/// is of the kind its type byte says, and is within the limit; what is left over after an
/// error-free decode is only the start of a message.
func checkPostgresMessages(_ input: [UInt8]) {
    guard let selector = input.first else { return }
    let decoder = BackendMessageDecoder(maxMessageLength: selector & 1 == 0 ? BackendMessageDecoder.defaultMaxMessageLength : tinyLimit)
    let stream = Array(input.dropFirst())

    let whole = decode([stream], decoder)
    var offset = 0
    for (message, consumed) in zip(whole.messages, whole.consumed) {
        precondition(consumed >= 5 && offset + consumed <= stream.count, "consumed \(consumed) at \(offset) of \(stream.count)")
        let declared =
            Int(
                UInt32(stream[offset + 1]) << 24 | UInt32(stream[offset + 2]) << 16 | UInt32(stream[offset + 3]) << 8
                    | UInt32(stream[offset + 4]))
        precondition(consumed == 1 + declared, "consumed \(consumed), declared \(declared)")
        precondition(declared <= decoder.maxMessageLength, "declared \(declared) over the limit")
        precondition(message.kind.rawValue == stream[offset], "a \(message.kind) from type byte \(stream[offset])")
        precondition(message.kind.validLengths.contains(declared), "\(message.kind) with length \(declared)")
        offset += consumed
    }
    if whole.failure == nil {
        precondition(offset + whole.leftover == stream.count, "bytes lost: \(offset) + \(whole.leftover) of \(stream.count)")
    }
    if whole.failure == nil, whole.leftover >= 5 {
        let declared =
            Int(
                UInt32(stream[offset + 1]) << 24 | UInt32(stream[offset + 2]) << 16 | UInt32(stream[offset + 3]) << 8
                    | UInt32(stream[offset + 4]))
        precondition(whole.leftover < 1 + declared, "\(whole.leftover) bytes left over hold a whole message of \(declared)")
    }

    var generator = SplitGenerator(seed: selector)
    var pieces: [[UInt8]] = []
    var start = 0
    while start < stream.count {
        let size = min(stream.count - start, generator.nextSize())
        pieces.append(Array(stream[start..<start + size]))
        start += size
    }
    let split = decode(pieces, decoder)
    precondition(split == whole, "split into \(pieces.map(\.count)) decoded differently: \(split) vs \(whole)")
    if stream.count <= 512 {
        let bytewise = decode(stream.map { [$0] }, decoder)
        precondition(bytewise == whole, "a byte at a time decoded differently: \(bytewise) vs \(whole)")
    }
}

/// Feeds `chunks` one read at a time, keeping the unconsumed rest as the connection does.
private func decode(_ chunks: [[UInt8]], _ decoder: BackendMessageDecoder) -> Outcome {
    var outcome = Outcome()
    var pending: [UInt8] = []
    for chunk in chunks {
        pending += chunk
        while true {
            do {
                guard case .message(let message, let consumed) = try decoder.decode(pending) else { break }
                precondition(consumed > 0 && consumed <= pending.count, "consumed \(consumed) of \(pending.count)")
                outcome.messages.append(message)
                outcome.consumed.append(consumed)
                pending.removeFirst(consumed)
            } catch {
                outcome.failure = error
                return outcome
            }
        }
    }
    outcome.leftover = pending.count
    return outcome
}

/// Piece sizes from 1 to 64 bytes, from a xorshift generator: the same input always splits
/// the same way, so a finding reproduces.
private struct SplitGenerator {
    private var state: UInt32

    init(seed: UInt8) { state = 0x9E37_79B9 ^ UInt32(seed) << 8 | 1 }

    mutating func nextSize() -> Int {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return Int(state % 64) + 1
    }
}
#else
func checkPostgresMessages(_ input: [UInt8]) {
    fatalError("FuzzPostgresMessages needs a debug build: it reaches TripsServer through @testable import")
}
#endif
