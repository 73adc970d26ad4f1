import Foundation
import TripsFormats

/// RFC 3339 timestamps, the way trips carry `start` in JSON.
///
/// Writes `2027-03-05T00:00:00Z` (with `.sss` only when there are milliseconds);
/// reads that, fractional seconds, any offset, and a bare date as midnight UTC. Trips keep
/// milliseconds: a finer fraction is rounded to the millisecond when read, so what is
/// stored is exactly what is written back.
public enum TripDate {
    /// The UTC timestamp for `date`.
    public static func rfc3339(_ date: Date) -> String {
        var writer = JSONWriter(reservingCapacity: 24)
        writer.appendRFC3339(date)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Whether `date` is an instant `parse` can name: in years 1 to 9999 UTC (so not infinite
    /// or NaN). A date read from storage is checked with it: every one the API took is, and
    /// rendering one outside (a row edited by hand, a hostile database's) would trap.
    package static func isInRange(_ date: Date) -> Bool {
        (-62_135_596_800..<253_402_300_800).contains(date.timeIntervalSince1970)
    }

    /// The instant an RFC 3339 timestamp or a bare `YYYY-MM-DD` names, or nil.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// The instant the UTF-8 text `bytes` names, as `parse(_:)` reads it: what start-up reads
    /// from a million stored trips without making a `String` of each.
    package static func parse(utf8 bytes: UnsafeRawBufferPointer) -> Date? {
        var scanner = DigitScanner(bytes)
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
            let dayOfMonth = scanner.digits(2), let day = CivilDate(year: year, month: month, day: dayOfMonth)
        else { return nil }
        if scanner.isAtEnd { return day.midnight }
        guard scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.digits(2), hour < 24, scanner.skip(":"),
            let minute = scanner.digits(2), minute < 60, scanner.skip(":"),
            let second = scanner.digits(2), second < 61
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            let (value, count) = scanner.fraction()
            guard count > 0 else { return nil }
            fraction = (value * 1000).rounded() / 1000
        }
        var offsetSeconds = 0
        if scanner.skip("Z") || scanner.skip("z") {
            // UTC
        } else {
            let sign: Int
            if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else { return nil }
            guard let offsetHours = scanner.digits(2), offsetHours < 24, scanner.skip(":"),
                let offsetMinutes = scanner.digits(2), offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard scanner.isAtEnd else { return nil }
        let seconds = day.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds
        let date = Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
        // An offset can carry the instant out of the years `rfc3339` writes (0001-9999).
        guard isInRange(date) else { return nil }
        return date
    }

}

/// Reads fixed-width digits and punctuation from ASCII bytes.
private struct DigitScanner {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func digits(_ count: Int) -> Int? {
        guard bytes.count - index >= count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// The digits after a decimal point as a fraction of a second, and how many there were.
    mutating func fraction() -> (Double, Int) {
        var value = 0.0
        var scale = 0.1
        var count = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value += Double(bytes[index] - UInt8(ascii: "0")) * scale
            scale /= 10
            count += 1
            index += 1
        }
        return (value, count)
    }
}

extension JSONWriter {
    /// `date` as a quoted RFC 3339 timestamp, as `TripDate.rfc3339` spells it, written digit
    /// by digit (no text built first).
    public mutating func appendTimestamp(_ date: Date) {
        appendRFC3339(date, quoted: true)
    }

    /// A date on a whole second in years 1 to 9999 as a quoted timestamp, exactly what
    /// `TripDate.rfc3339` writes (and `TripDate.parse` reads back as the same date); false,
    /// writing nothing, for any other date.
    public mutating func appendWholeSecondTimestamp(_ date: Date) -> Bool {
        let sinceEpoch = date.timeIntervalSince1970
        guard sinceEpoch.rounded(.down) == sinceEpoch, TripDate.isInRange(date) else {
            return false
        }
        appendTimestamp(date)
        return true
    }

    /// `2027-03-05T00:00:00Z`, with `.sss` only when there are milliseconds: the one place
    /// that spells a timestamp. Written in one step, each field straight into the buffer.
    fileprivate mutating func appendRFC3339(_ date: Date, quoted: Bool = false) {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let msOfDay = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
        let day = CivilDate(daysSinceEpoch: (milliseconds - msOfDay) / 86_400_000)
        appendBytes(atMost: 9 + 7 * JSONWriter.maxDigits(width: 4)) { target in
            var written = 0
            func put(_ byte: UInt8) {
                target[written] = byte
                written += 1
            }
            func put(_ value: Int, width: Int) {
                written += JSONWriter.writeDigits(value, width: width, to: target + written)
            }
            if quoted { put(UInt8(ascii: "\"")) }
            put(day.year, width: 4)
            put(UInt8(ascii: "-"))
            put(day.month, width: 2)
            put(UInt8(ascii: "-"))
            put(day.day, width: 2)
            put(UInt8(ascii: "T"))
            put(msOfDay / 3_600_000, width: 2)
            put(UInt8(ascii: ":"))
            put(msOfDay / 60_000 % 60, width: 2)
            put(UInt8(ascii: ":"))
            put(msOfDay / 1000 % 60, width: 2)
            if msOfDay % 1000 != 0 {
                put(UInt8(ascii: "."))
                put(msOfDay % 1000, width: 3)
            }
            put(UInt8(ascii: "Z"))
            if quoted { put(UInt8(ascii: "\"")) }
            return written
        }
    }
}
