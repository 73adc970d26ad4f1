import Foundation

/// A calendar day in UTC, and the two ways trips write dates: RFC 3339 for machines,
/// "March 5, 2027" for people.
///
/// Written out by hand rather than with `DateFormatter`: the output must not depend on
/// the machine's locale or ICU data, and text import must parse exactly what export writes.
package struct CivilDate: Hashable {
    var year: Int
    var month: Int
    var day: Int

    static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// The UTC day that contains `date`.
    init(_ date: Date) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        self.init(daysSinceEpoch: seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    }

    /// The day `days` after 1970-01-01 (Howard Hinnant's civil_from_days).
    init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// A valid day in years 1 through 9999, or nil.
    init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Hinnant's days_from_civil).
    var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Midnight UTC at the start of this day.
    var midnight: Date {
        Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch * 86_400))
    }

    /// "March 5, 2027", as `formatted(date: .long, time: .omitted)` writes it in en_US.
    var longEnglish: String {
        "\(Self.monthNames[month - 1]) \(day), \(year)"
    }

    /// Reads "March 5, 2027" (the month name in any case).
    init?(longEnglish text: Substring) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[1].last == ",",
            let month = Self.monthNames.firstIndex(where: { $0.caseInsensitiveCompare(parts[0]) == .orderedSame }),
            let day = Int(parts[1].dropLast()), let year = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month + 1, day: day)
    }
}
