import Glibc

/// The time of a log line in UTC, to the millisecond (`2026-11-29T18:44:10.053Z`), with the
/// date and time of the current second rendered once per second, not once per line.
package struct LogTimestamp {
    /// `YYYY-MM-DDTHH:MM:SS` of `renderedSecond`.
    private var secondText: [UInt8] = []
    private var renderedSecond = -1

    package init() {}

    /// The realtime clock now.
    package static func now() -> timespec {
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        return clock
    }

    /// Appends `clock` as RFC 3339 text in UTC with milliseconds.
    package mutating func append(_ clock: timespec, to buffer: inout [UInt8]) {
        if clock.tv_sec != renderedSecond {
            renderedSecond = clock.tv_sec
            var parts = tm()
            var seconds = clock.tv_sec
            gmtime_r(&seconds, &parts)
            secondText.removeAll(keepingCapacity: true)
            LogLine.appendPadded(Int(parts.tm_year) + 1900, width: 4, to: &secondText)
            secondText.append(UInt8(ascii: "-"))
            LogLine.appendPadded(Int(parts.tm_mon) + 1, width: 2, to: &secondText)
            secondText.append(UInt8(ascii: "-"))
            LogLine.appendPadded(Int(parts.tm_mday), width: 2, to: &secondText)
            secondText.append(UInt8(ascii: "T"))
            LogLine.appendPadded(Int(parts.tm_hour), width: 2, to: &secondText)
            secondText.append(UInt8(ascii: ":"))
            LogLine.appendPadded(Int(parts.tm_min), width: 2, to: &secondText)
            secondText.append(UInt8(ascii: ":"))
            LogLine.appendPadded(Int(parts.tm_sec), width: 2, to: &secondText)
        }
        buffer.append(contentsOf: secondText)
        buffer.append(UInt8(ascii: "."))
        LogLine.appendPadded(clock.tv_nsec / 1_000_000, width: 3, to: &buffer)
        buffer.append(UInt8(ascii: "Z"))
    }
}
