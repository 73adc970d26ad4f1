import Synchronization

/// The photos' bytes a PostgreSQL store keeps in memory, so that serving a photo is not a
/// round trip to the database each time: the photos this instance wrote, and those it read,
/// up to `capacity` bytes in all; past that, the ones read longest ago go first.
///
/// A photo's bytes never change (they are named by their SHA-256), so nothing kept is ever stale.
final class PhotoCache: Sendable {
    /// The default capacity: 64 MiB, a few hundred phone photos.
    static let defaultCapacity = 64 << 20

    private struct Kept {
        var bytes: [UInt8]
        /// When it was last read or kept, by `clock`: the lowest goes first.
        var lastUse: UInt64
    }

    private struct State {
        var kept: [String: Kept] = [:]
        var byteCount = 0
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = defaultCapacity) {
        self.capacity = capacity
    }

    /// The bytes kept for `digest`, if any.
    func bytes(_ digest: String) -> [UInt8]? {
        state.withLock { state in
            guard var kept = state.kept[digest] else { return nil }
            state.clock += 1
            kept.lastUse = state.clock
            state.kept[digest] = kept
            return kept.bytes
        }
    }

    /// Keeps `bytes` for `digest`, making room by dropping the photos read longest ago. Bytes
    /// larger than the whole capacity are not kept.
    func keep(_ bytes: [UInt8], for digest: String) {
        guard bytes.count <= capacity else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.kept.updateValue(Kept(bytes: bytes, lastUse: state.clock), forKey: digest) {
                state.byteCount -= old.bytes.count
            }
            state.byteCount += bytes.count
            while state.byteCount > capacity, let oldest = state.kept.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.kept[oldest.key] = nil
                state.byteCount -= oldest.value.bytes.count
            }
        }
    }
}
