import Foundation

/// A language's long date ("5 mars 2027", "2027年3月5日"), as Foundation's `.long` date style
/// writes it for the language's locale, learned once per month from Foundation and then
/// written and read by hand.
///
/// Why not ask Foundation for every date: its Gregorian calendar switches to the Julian one
/// before October 15, 1582 (so 1582-10-10 would be written "20 octobre 1582"), and reads
/// a two-digit year as this century's. Trips are proleptic Gregorian UTC days from year 1 to
/// 9999, and every day must read back as itself; writing from a template keeps Foundation's
/// words and order for every day and year.
package struct LongDateFormat: Sendable {
    private enum Piece: Sendable, Equatable {
        case text(String)
        case day
        case year
    }

    /// One template per month: the words around the day and the year.
    private let months: [[Piece]]

    /// Learns the templates from Foundation's long date for `locale`: a day and a year that
    /// cannot be mistaken for anything else (the 23rd, 2001), found in the text and marked.
    init(locale: Locale) {
        let utc = TimeZone(identifier: "UTC")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let style = Date.FormatStyle(date: .long, time: .omitted, locale: locale, calendar: calendar, timeZone: utc)
        months = (1...12).map { month in
            let sample = CivilDate(year: 2001, month: month, day: 23)!.midnight.formatted(style)
            return Self.template(sample)
        }
    }

    private static func template(_ sample: String) -> [Piece] {
        var pieces: [Piece] = []
        var rest = Substring(sample)
        while !rest.isEmpty {
            let day = rest.range(of: "23")
            let year = rest.range(of: "2001")
            guard let next = [day, year].compactMap({ $0 }).min(by: { $0.lowerBound < $1.lowerBound }) else {
                pieces.append(.text(String(rest)))
                break
            }
            if next.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<next.lowerBound]))) }
            pieces.append(next == year ? .year : .day)
            rest = rest[next.upperBound...]
        }
        return pieces
    }

    func format(_ day: CivilDate) -> String {
        months[day.month - 1].map { piece in
            switch piece {
            case .text(let text): text
            case .day: String(day.day)
            case .year: String(day.year)
            }
        }.joined()
    }

    /// The day a long date names (its words in any letter case), or nil.
    func parse(_ text: Substring) -> CivilDate? {
        for (index, template) in months.enumerated() {
            if let day = Self.match(template, text, month: index + 1) { return day }
        }
        return nil
    }

    private static func match(_ template: [Piece], _ text: Substring, month: Int) -> CivilDate? {
        var rest = text
        var day: Int?
        var year: Int?
        for piece in template {
            switch piece {
            case .text(let words):
                guard let found = rest.range(of: words, options: [.anchored, .caseInsensitive]) else { return nil }
                rest = rest[found.upperBound...]
            case .day, .year:
                let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
                guard (1...4).contains(digits.count), digits.first != "0", let value = Int(digits) else { return nil }
                if piece == .day { day = value } else { year = value }
                rest = rest[digits.endIndex...]
            }
        }
        guard rest.isEmpty, let day, let year else { return nil }
        return CivilDate(year: year, month: month, day: day)
    }
}
