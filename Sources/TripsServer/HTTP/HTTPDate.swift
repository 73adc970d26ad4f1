/// Formats IMF-fixdate timestamps for the Date field.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-date-time-formats
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate for seconds since 1970 (UTC).
    ///
    ///     HTTPDate.format(epochSeconds: 784_111_777)  // "Sun, 06 Nov 1994 08:49:37 GMT"
    static func format(epochSeconds: Int) -> String {
        let days = epochSeconds >= 0 ? epochSeconds / 86_400 : (epochSeconds - 86_399) / 86_400
        let secondsOfDay = epochSeconds - days * 86_400
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday
        let (year, month, day) = civil(fromDays: days)
        return "\(weekdays[weekday]), \(twoDigits(day)) \(months[month - 1]) \(year) "
            + "\(twoDigits(secondsOfDay / 3600)):\(twoDigits(secondsOfDay / 60 % 60)):\(twoDigits(secondsOfDay % 60)) GMT"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Howard Hinnant's civil_from_days.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// The `Date` and `Server` field lines every response starts with, rendered once per second.
///
/// Confined to one event loop.
final class DateCache {
    private(set) var epochSeconds: Int
    /// `Date: <IMF-fixdate>\r\nServer: trips\r\n`
    private(set) var fieldLines: [UInt8]

    init(epochSeconds: Int) {
        self.epochSeconds = epochSeconds
        fieldLines = Self.render(epochSeconds)
    }

    /// Re-renders when the second has changed.
    func update(epochSeconds: Int) {
        guard epochSeconds != self.epochSeconds else { return }
        self.epochSeconds = epochSeconds
        fieldLines = Self.render(epochSeconds)
    }

    private static func render(_ seconds: Int) -> [UInt8] {
        Array("Date: \(HTTPDate.format(epochSeconds: seconds))\r\nServer: trips\r\n".utf8)
    }
}

@available(*, unavailable)
extension DateCache: Sendable {}
