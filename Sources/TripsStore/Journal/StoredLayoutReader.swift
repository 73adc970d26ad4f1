import Foundation
import TripsDomain
import TripsFormats

/// Reads the records start-up meets by the million in exactly the layout storage writes them,
/// without building a JSON tree: a snapshot's trip records and the journal's `add` records.
///
///     {"version":40,"id":2,"city":"Vancouver","country":"Canada","nights":3,"isFavorite":false,
///      "imageName":"","price":1299.99,"start":"2027-03-05T00:00:00Z","notes":""}
///     {"version":41,"id":3,…,"notes":"","photo":{"digest":"9f86d0…","format":"jpeg","width":1200,"height":800,"bytes":183442}}
///     {"revision":8,"op":"add","drafts":[{"city":"Lisbon",…,"notes":""},{…}],"before":3}
///
/// The general reader (`StoredObject`) takes about five times as long. Anything this reader
/// does not expect (a string with an escape, members in another order, white space, a number
/// in another form, an idempotency key) answers nil and the general reader takes the record:
/// the fast path accepts only what the general one accepts, and reads it the same way.
package struct StoredLayoutReader {
    private let bytes: UnsafeRawBufferPointer
    private var index: Int
    /// The long strings read lately, lent by the caller for one record (none by default).
    private var strings = RecentStrings(slotCount: 0)

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    /// A snapshot's trip record: the trip and its version, or nil when the record is not in
    /// the expected layout. A long string equal to one in `strings` shares its storage.
    package static func trip(
        _ payload: UnsafeRawBufferPointer, strings: inout RecentStrings
    ) -> (trip: Trip, version: UInt64)? {
        var reader = StoredLayoutReader(payload)
        swap(&reader.strings, &strings)
        defer { swap(&reader.strings, &strings) }
        guard reader.skip(#"{"version":"#), let version = reader.wholeNumber(), reader.skip(#","id":"#),
            let id = reader.wholeNumber().flatMap(Int.init(exactly:)), reader.skip(","),
            let trip = reader.draftMembers({
                Trip(
                    id: id, city: $0, country: $1, nights: $2, isFavorite: $3, imageName: $4, price: $5, start: $6, notes: $7)
            })
        else { return nil }
        // Returned as it was made when it has no photo (most trips): a `var` set in between
        // was copied out whole.
        guard reader.skip(#","photo":"#) else { return reader.skip("}") && reader.isAtEnd ? (trip, version) : nil }
        guard let photo = reader.storedPhoto(), reader.skip("}"), reader.isAtEnd else { return nil }
        var withPhoto = trip
        withPhoto.photo = photo
        return (withPhoto, version)
    }

    /// A journal record that adds trips, without an idempotency key; nil for any other record.
    package static func addRecord(_ payload: UnsafeRawBufferPointer) -> JournalRecord? {
        var reader = StoredLayoutReader(payload)
        guard reader.skip(#"{"revision":"#), let revision = reader.wholeNumber(), reader.skip(#","op":"add","drafts":["#)
        else { return nil }
        var drafts: [TripDraft] = []
        repeat {
            guard reader.skip("{"), let draft = reader.draftMembers(), reader.skip("}") else { return nil }
            drafts.append(draft)
        } while reader.skip(",")
        guard reader.skip("]") else { return nil }
        var before: Int?
        if reader.skip(#","before":"#) {
            guard let id = reader.wholeNumber().flatMap(Int.init(exactly:)) else { return nil }
            before = id
        }
        guard reader.skip("}"), reader.isAtEnd else { return nil }
        return JournalRecord(revision: revision, change: .add(drafts, before: before))
    }

    /// A snapshot's change event, `{"revision":8,"event":"change","data":"{\"revision\":8,…}"}`,
    /// its data unescaped straight into bytes without a `String` made of it; nil for any other
    /// layout (the general reader takes it).
    package static func event(_ payload: UnsafeRawBufferPointer) -> ChangeEvent? {
        var reader = StoredLayoutReader(payload)
        guard reader.skip(#"{"revision":"#), let revision = reader.wholeNumber(), reader.skip(#","event":"#),
            let name = reader.string(), reader.skip(#","data":"#), let data = reader.unescaped(), reader.skip("}"), reader.isAtEnd
        else { return nil }
        return ChangeEvent(revision: revision, name: name, data: data)
    }

    /// A change event as snapshots write it from format 6 on,
    /// `{"revision":8,"event":"change","data":{"revision":8,…}}`: the data is every byte from
    /// after `"data":` to the closing brace that ends the record, copied as it is; nil unless
    /// it is UTF-8 (any layout else is damage: the format has no other).
    package static func eventWithBytes(_ payload: UnsafeRawBufferPointer) -> ChangeEvent? {
        var reader = StoredLayoutReader(payload)
        guard reader.skip(#"{"revision":"#), let revision = reader.wholeNumber(), reader.skip(#","event":"#),
            let name = reader.string(), reader.skip(#","data":"#), payload.last == UInt8(ascii: "}"),
            reader.index < payload.endIndex
        else { return nil }
        let data = UnsafeRawBufferPointer(rebasing: payload[reader.index..<(payload.endIndex - 1)])
        guard UTF8Text.isUTF8(data) else { return nil }
        return ChangeEvent(revision: revision, name: name, data: Array(data))
    }

    private var isAtEnd: Bool { index == bytes.endIndex }

    /// The eight members `JSONWriter.appendDraftMembers` writes, `"city":…,"notes":…`.
    private mutating func draftMembers() -> TripDraft? {
        draftMembers(TripDraft.init(city:country:nights:isFavorite:imageName:price:start:notes:))
    }

    /// The eight members' values, handed over to `make` as they were read: a trip made so
    /// takes the strings as they are, where one made from a `TripDraft` copied each string and
    /// destroyed the draft, about 800 instructions of each trip a snapshot holds.
    @inline(__always)
    private mutating func draftMembers<Result>(
        _ make: (
            _ city: consuming String, _ country: consuming String, _ nights: Int, _ isFavorite: Bool,
            _ imageName: consuming String, _ price: consuming Price, _ start: Date, _ notes: consuming String
        ) -> Result
    ) -> Result? {
        guard skip(#""city":"#), let city = string(), skip(#","country":"#), let country = string(),
            skip(#","nights":"#), let nights = wholeNumber().flatMap(Int.init(exactly:)), skip(#","isFavorite":"#),
            let isFavorite = boolean(), skip(#","imageName":"#), let imageName = string(), skip(#","price":"#),
            let price = storedPrice(), skip(#","start":"#), let start = date(),
            skip(#","notes":"#), let notes = string()
        else { return nil }
        return make(city, country, nights, isFavorite, imageName, price, start, notes)
    }

    /// What `JSONWriter.appendStoredPhoto` writes, `{"digest":…,"bytes":…}`.
    private mutating func storedPhoto() -> TripPhoto? {
        guard skip(#"{"digest":"#), let digest = string(), skip(#","format":"#), let format = string().flatMap(ImageFormat.init),
            skip(#","width":"#), let width = wholeNumber().flatMap(Int.init(exactly:)), skip(#","height":"#),
            let height = wholeNumber().flatMap(Int.init(exactly:)), skip(#","bytes":"#),
            let byteCount = wholeNumber().flatMap(Int.init(exactly:)), skip("}")
        else { return nil }
        return TripPhoto(digest: digest, format: format, width: width, height: height, byteCount: byteCount)
    }

    /// Steps over `literal` if the bytes continue with it. Thirteen a trip: a literal of 8 to
    /// 16 bytes (most member names) is compared as two words that may overlap, inlined, where
    /// a call of `memcmp` cost more than the comparing.
    @inline(__always)
    private mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.endIndex - index >= count, let base = bytes.baseAddress else { return false }
        let here = UnsafeRawPointer(base + index)
        let text = UnsafeRawPointer(literal.utf8Start)
        let matches =
            (8...16).contains(count)
            ? here.loadUnaligned(as: UInt64.self) == text.loadUnaligned(as: UInt64.self)
                && here.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == text.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            : memcmp(here, text, count) == 0
        guard matches else { return false }
        index += count
        return true
    }

    /// A JSON integer of at most 18 digits with no sign or leading zero (so it cannot overflow).
    private mutating func wholeNumber() -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < bytes.endIndex, index - start < 18, case let byte = bytes[index], byte >= 0x30, byte <= 0x39 {
            value = value * 10 + UInt64(byte - 0x30)
            index += 1
        }
        let length = index - start
        guard length > 0, length < 18, bytes[start] != 0x30 || length == 1 else { return nil }
        return value
    }

    private mutating func boolean() -> Bool? {
        if skip("true") { return true }
        if skip("false") { return false }
        return nil
    }

    /// A price as `Price.digits` writes one of zero or more, in at most 18 digits
    /// (`Price(storedDigits:)`); any other form answers nil, for the general reader.
    private mutating func storedPrice() -> Price? {
        let start = index
        while index < bytes.endIndex, case let byte = bytes[index], (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: ".") {
            index += 1
        }
        return Price(storedDigits: UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
    }

    /// A date as a JSON string without escapes (`"2027-03-05T00:00:00Z"`), read as
    /// `TripDate.parse` reads it, without a `String` made of it.
    private mutating func date() -> Date? {
        quoted().flatMap { TripDate.parse(utf8: $0.utf8) }
    }

    /// A JSON string without escapes or control characters, in valid UTF-8.
    private mutating func string() -> String? {
        guard let (utf8, isASCII) = quoted() else { return nil }
        return strings.string(utf8, isASCII: isASCII)
    }

    /// The bytes a JSON string stands for, with the escapes `JSONWriter.appendString` writes
    /// (`\"`, `\\`, `\n`, `\r`, `\t`, and `\u00XX` for the other ASCII controls), in valid UTF-8;
    /// nil for any other escape.
    ///
    /// A snapshot's change events are JSON inside JSON, the largest strings start-up reads, on
    /// the thread that reads the snapshot, with an escaped quote every ten bytes or so: the
    /// bytes are taken eight at a time, each word written out whole and kept up to its first
    /// quote, backslash or control (`specialBytes`), into an array sized once (a byte loop with
    /// an append per run took 25 instructions a byte).
    private mutating func unescaped() -> [UInt8]? {
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let source = bytes
        let start = index + 1
        guard start < source.endIndex else { return nil }
        var end: Int?  // just past the closing quote, once it is found
        var highBits: UInt64 = 0
        // Unescaping never lengthens, so `count` stays at or below `position - start`, and a
        // word written at `count` ends within the room whenever the word read at `position` does.
        let result = [UInt8](unsafeUninitializedCapacity: source.endIndex - start) { output, count in
            let target = UnsafeMutableRawPointer(output.baseAddress!)
            var position = start
            while position < source.endIndex {
                var byte: UInt8
                if source.endIndex - position >= 8 {
                    let word = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                    target.storeBytes(of: word.littleEndian, toByteOffset: count, as: UInt64.self)
                    let special = Self.specialBytes(word)
                    guard special != 0 else {
                        highBits |= word
                        count += 8
                        position += 8
                        continue
                    }
                    let plain = special.trailingZeroBitCount / 8
                    highBits |= word & ((1 << (plain * 8)) &- 1)
                    count += plain
                    position += plain
                    byte = UInt8(truncatingIfNeeded: word >> (plain * 8))
                } else {
                    byte = source[position]
                    if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                        output[count] = byte
                        highBits |= UInt64(byte)
                        count += 1
                        position += 1
                        continue
                    }
                }
                if byte == UInt8(ascii: "\"") {
                    end = position + 1
                    return
                }
                // A control character is no string; an escape it does not know is left to the
                // general reader.
                guard byte == UInt8(ascii: "\\"), let (unescaped, length) = Self.escape(source, at: position) else { return }
                output[count] = unescaped
                count += 1
                position += length
            }
        }
        guard let end else { return nil }
        index = end
        let isASCII = highBits & 0x8080_8080_8080_8080 == 0
        return result.withUnsafeBytes { UTF8Text.isUTF8($0, isASCII: isASCII) } ? result : nil
    }

    /// The high bit of each byte of `word` (read little-endian: the first byte lowest) that is `"`,
    /// `\` or below 0x20, exact up to the first such byte (the lowest bit set); bytes above it
    /// may be marked too. A byte XORed with the one looked for is zero, and
    /// `(x - 0x01…) & ~x & 0x80…` marks zero bytes (with 0x20 for 0x01, bytes below 0x20),
    /// the lowest one exactly: the borrows run upward from it.
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }
        return (word &- ones &* 0x20) & ~word & highs | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))
    }

    /// The byte an escape at `position` (its backslash) stands for, and the escape's length;
    /// nil for an escape `JSONWriter` does not write.
    @inline(__always)  // once per escaped quote of an event's data: millions at start-up
    private static func escape(_ source: UnsafeRawBufferPointer, at position: Int) -> (byte: UInt8, length: Int)? {
        guard source.endIndex - position >= 2 else { return nil }
        switch source[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): return (source[position + 1], 2)
        case UInt8(ascii: "n"): return (0x0A, 2)
        case UInt8(ascii: "r"): return (0x0D, 2)
        case UInt8(ascii: "t"): return (0x09, 2)
        case UInt8(ascii: "u"):
            guard source.endIndex - position >= 6, source[position + 2] == 0x30, source[position + 3] == 0x30,
                let high = hexDigit(source[position + 4]), high < 8, let low = hexDigit(source[position + 5])
            else { return nil }
            return (high << 4 | low, 6)
        default: return nil
        }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// The bytes of a JSON string without escapes or control characters, and whether they
    /// are all ASCII: found eight bytes a step up to the first quote, backslash or control
    /// (`specialBytes`), five strings of every trip a start-up reads.
    private mutating func quoted() -> (utf8: UnsafeRawBufferPointer, isASCII: Bool)? {
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        var highBits: UInt64 = 0
        while bytes.endIndex - end >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: end, as: UInt64.self))
            let special = Self.specialBytes(word)
            guard special == 0 else {
                let plain = special.trailingZeroBitCount / 8
                highBits |= word & ((1 << (plain * 8)) &- 1)
                end += plain
                break
            }
            highBits |= word
            end += 8
        }
        // The last few bytes, or the special one the words stopped at.
        while end < bytes.endIndex, case let byte = bytes[end], byte != UInt8(ascii: "\"") {
            guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
            highBits |= UInt64(byte)
            end += 1
        }
        guard end < bytes.endIndex else { return nil }
        index = end + 1
        return (UnsafeRawBufferPointer(rebasing: bytes[start..<end]), highBits & 0x8080_8080_8080_8080 == 0)
    }
}
