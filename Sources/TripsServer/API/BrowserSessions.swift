import Synchronization
import TripsPlatform

/// The browsers signed in with a token (`POST /session`), kept in this process's memory.
///
/// A session's cookie value is its id, 32 random bytes, and the id's HMAC-SHA-256 under a key
/// this process made at start-up, both in hexadecimal: `<64 digits>.<64 digits>`. A value this
/// process did not sign is refused before any look-up, and a restart signs every browser out.
/// A session ends `lifetime` after it began (`--session-hours`), when its browser signs out,
/// or when `capacity` newer ones push it out, oldest first.
final class BrowserSessions: Sendable {
    /// 12 hours: a working day.
    static let defaultLifetime: Duration = .seconds(12 * 60 * 60)
    /// 10,000 sessions (about 2 MB); a sign-in past it ends the oldest.
    static let defaultCapacity = 10_000
    /// 256 bits, out of reach of guessing.
    private static let idByteCount = 32
    /// `<id>.<signature>`, each 32 bytes in hexadecimal.
    private static let cookieValueLength = 2 * idByteCount + 1 + 2 * SHA256.digestByteCount

    let lifetime: Duration
    let capacity: Int
    private let key: HMAC.Key
    private let clock: any ServerClock
    private let state = Mutex(State())

    private struct Session {
        /// The name of the token it was signed in with.
        let name: String
        let ends: MonotonicInstant
    }

    private struct State {
        var sessions: [[UInt8]: Session] = [:]
        /// Ids in the order their sessions began, which is also the order they expire in;
        /// some ended already (signed out). The oldest is at `start`.
        var order: [[UInt8]] = []
        var start = 0

        /// Forgets, oldest first, the sessions that expired by `now`, then as many more as it
        /// takes to keep at most `limit`.
        mutating func forgetEnded(at now: MonotonicInstant, keeping limit: Int) {
            while start < order.count {
                let id = order[start]
                if let session = sessions[id] {
                    guard session.ends <= now || sessions.count > limit else { break }
                    sessions[id] = nil
                }
                start += 1
            }
            if start > 0 && 2 * start >= order.count {
                order.removeFirst(start)
                start = 0
            }
        }

        /// Drops the ids of sessions signed out before their turn came: sign-ins and sign-outs
        /// in turn would otherwise grow `order` for a whole lifetime.
        mutating func compact() {
            order = order[start...].filter { sessions[$0] != nil }
            start = 0
        }
    }

    /// Throws when the kernel gives no random bytes for the key.
    init(lifetime: Duration = defaultLifetime, capacity: Int = defaultCapacity, clock: any ServerClock) throws(SystemError) {
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
        self.clock = clock
        key = HMAC.Key(try SecureRandom.bytes(32))
    }

    /// Begins a session for the token named `name` and answers its cookie value: a new id
    /// every time, never one a client chose (no session fixation).
    func begin(for name: String) throws(SystemError) -> String {
        let id = try SecureRandom.bytes(Self.idByteCount)
        let now = clock.now()
        let capacity = capacity
        state.withLock { state in
            state.forgetEnded(at: now, keeping: capacity - 1)
            state.sessions[id] = Session(name: name, ends: now + lifetime)
            state.order.append(id)
            if state.order.count - state.start > 2 * capacity { state.compact() }
        }
        return Hexadecimal.encode(id) + "." + Hexadecimal.encode(signature(of: id))
    }

    /// The name of the token the session `cookieValue` stands for, while it lasts; nil for a
    /// value this process did not sign, and for a session that ended or expired.
    func name(for cookieValue: Substring) -> String? {
        guard let id = verifiedID(cookieValue) else { return nil }
        let now = clock.now()
        return state.withLock { state in
            guard let session = state.sessions[id] else { return nil }
            guard now < session.ends else {
                state.sessions[id] = nil
                return nil
            }
            return session.name
        }
    }

    /// Ends the session `cookieValue` stands for, if it is one.
    func end(_ cookieValue: Substring) {
        guard let id = verifiedID(cookieValue) else { return }
        _ = state.withLock { $0.sessions.removeValue(forKey: id) }
    }

    /// How many sessions are kept (some perhaps expired, until they are next looked at).
    var count: Int { state.withLock { $0.sessions.count } }

    private func signature(of id: [UInt8]) -> [UInt8] {
        var hmac = HMAC(key: key)
        hmac.update(id)
        return hmac.finalize()
    }

    /// The id of a well-formed value whose signature is this process's, compared in
    /// constant time; nil otherwise. Only lowercase digits: one spelling per session.
    private func verifiedID(_ value: Substring) -> [UInt8]? {
        let utf8 = value.utf8
        guard utf8.count == Self.cookieValueLength else { return nil }
        let dot = 2 * Self.idByteCount
        for (offset, byte) in utf8.enumerated() {
            let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            guard offset == dot ? byte == UInt8(ascii: ".") : isDigit else { return nil }
        }
        let middle = utf8.index(utf8.startIndex, offsetBy: dot)
        guard let id = Hexadecimal.decode(String(value[..<middle])),
            let presented = Hexadecimal.decode(String(value[utf8.index(after: middle)...])),
            ConstantTime.isEqual(signature(of: id), presented)
        else { return nil }
        return id
    }
}
