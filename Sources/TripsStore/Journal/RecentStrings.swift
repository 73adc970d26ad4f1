import Glibc
import TripsFormats

/// The longer strings a reader made lately, so that a string read again shares the storage of
/// the one made before instead of having its own.
///
/// A string of up to 15 UTF-8 bytes lives inside its `String` value; a longer one has a
/// buffer of its own, 48 bytes or more, for every trip that holds it. Long lists repeat their
/// longer words: a country (`United States of America`), a note pasted into many trips, an
/// image name. This keeps the last long string read for each of `slotCount` slots (chosen by
/// a hash of its bytes): a string equal to the one in its slot is that one, shared.
package struct RecentStrings {
    /// The last long string seen in each slot; empty when none was.
    private var slots: [String]

    /// A cache of `slotCount` strings (a power of two; zero keeps none, and every string read
    /// is made anew).
    package init(slotCount: Int = 1_024) {
        precondition(slotCount == 0 || slotCount.nonzeroBitCount == 1, "the slot count must be a power of two")
        slots = Array(repeating: "", count: slotCount)
    }

    /// The string `utf8` spells (valid UTF-8, or nil), shared with the one read before it
    /// when they are equal and long.
    mutating func string(_ utf8: UnsafeRawBufferPointer, isASCII: Bool) -> String? {
        guard utf8.count > 15, !slots.isEmpty else { return UTF8Text.string(utf8, isASCII: isASCII) }
        let slot = Self.hash(utf8) & (slots.count - 1)
        let isSame =
            slots[slot].utf8.count == utf8.count
            && slots[slot].withUTF8 { stored in
                guard let kept = stored.baseAddress, let read = utf8.baseAddress else { return false }
                return memcmp(kept, read, utf8.count) == 0
            }
        if isSame { return slots[slot] }
        guard let made = UTF8Text.string(utf8, isASCII: isASCII) else { return nil }
        slots[slot] = made
        return made
    }

    /// The string `utf8` spells (valid UTF-8, or nil), as `string(_:isASCII:)`, for bytes
    /// not known to be ASCII.
    mutating func string(_ utf8: UnsafeRawBufferPointer) -> String? {
        string(utf8, isASCII: UTF8Text.isASCII(utf8))
    }

    /// FNV-1a over 8-byte words: cheap, and plenty to spread the strings of one list.
    private static func hash(_ utf8: UnsafeRawBufferPointer) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var index = 0
        while utf8.count - index >= 8 {
            hash = (hash ^ utf8.loadUnaligned(fromByteOffset: index, as: UInt64.self)) &* 0x100_0000_01B3
            index += 8
        }
        while index < utf8.count {
            hash = (hash ^ UInt64(utf8[index])) &* 0x100_0000_01B3
            index += 1
        }
        return Int(truncatingIfNeeded: hash ^ hash >> 29)
    }
}
