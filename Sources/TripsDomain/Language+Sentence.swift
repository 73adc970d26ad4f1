import Foundation

/// How each language writes a trip's sentence, and reads one back.
///
/// Every language writes `{city}, {country}{colon}{stay}`: the city and the country as
/// stored (they are names, not words to translate), then the stay in the language's words:
///
///     en  Vancouver, Canada: 3 nights from March 5, 2027
///     fr  Vancouver, Canada : 3 nuits à partir du 5 mars 2027
///     de  Vancouver, Canada: 3 Nächte ab dem 5. März 2027
///     es  Vancouver, Canada: 3 noches desde el 5 de marzo de 2027
///     pt-BR  Vancouver, Canada: 3 noites a partir de 5 de março de 2027
///     ja  Vancouver, Canada：2027年3月5日から3泊
///     pl  Vancouver, Canada: 3 noce od 5 marca 2027
///
/// So one rule splits a sentence in any language (`TripDraft(sentence:)`): the stay follows
/// the last colon (`": "`, or the full-width `"："`), the country the last `", "` before it.
extension Language {
    /// What comes between the country and the stay. French sets a no-break space before
    /// its colon, as French typography does; reading takes a plain space there too.
    package var colon: String {
        switch self {
        case .french: "\u{00A0}: "
        case .japanese: "："
        default: ": "
        }
    }

    /// The word for nights that goes with `nights`, by the language's plural rules.
    package func nightsWord(_ nights: Int) -> String {
        let category = pluralCategory(nights)
        switch self {
        case .english: return category == .one ? "night" : "nights"
        case .french: return category == .one ? "nuit" : "nuits"
        case .german: return category == .one ? "Nacht" : "Nächte"
        case .spanish: return category == .one ? "noche" : "noches"
        case .brazilianPortuguese: return category == .one ? "noite" : "noites"
        case .japanese: return "泊"
        case .polish:
            switch category {
            case .one: return "noc"
            case .few: return "noce"
            case .many, .other: return "nocy"
            }
        }
    }

    /// The words between the number of nights and the date ("from", "à partir du", …).
    private var fromWords: String {
        switch self {
        case .english: "from"
        case .french: "à partir du"
        case .german: "ab dem"
        case .spanish: "desde el"
        case .brazilianPortuguese: "a partir de"
        case .japanese: "から"
        case .polish: "od"
        }
    }

    /// The stay: "3 nights from March 5, 2027", "2027年3月5日から3泊".
    package func stay(nights: Int, start: Date) -> String {
        let day = CivilDate(start)
        switch self {
        case .english: return "\(nights) \(nightsWord(nights)) from \(day.longEnglish)"
        case .japanese: return "\(longDate(day))から\(nights)泊"
        default: return "\(nights) \(nightsWord(nights)) \(fromWords) \(longDate(day))"
        }
    }

    /// Reads a stay back: the number of nights (with the word its plural rules ask for, in
    /// any letter case) and the start day. Nil when the text is not a stay in this language.
    package func readStay(_ text: String) -> (nights: Int, start: CivilDate)? {
        if self == .japanese {
            guard text.hasSuffix("泊"), let from = text.range(of: fromWords, options: .backwards) else { return nil }
            let number = text[from.upperBound..<text.index(before: text.endIndex)]
            guard let nights = Int(number), let day = readDate(String(text[..<from.lowerBound])) else { return nil }
            return (nights, day)
        }
        let words = text.split(separator: " ", maxSplits: 1)
        guard words.count == 2, let nights = Int(words[0]),
            let prefix = words[1].range(of: "\(nightsWord(nights)) \(fromWords) ", options: [.anchored, .caseInsensitive]),
            let day = readDate(String(words[1][prefix.upperBound...]))
        else { return nil }
        return (nights, day)
    }

    /// The day `start` falls on (in UTC) as a long date in this language: "March 5, 2027",
    /// "5 mars 2027", "2027年3月5日", as the sentence writes it.
    package func longDate(of start: Date) -> String {
        longDate(CivilDate(start))
    }

    /// The long date, as the lesson's `.formatted(date: .long)` writes it in this language.
    private func longDate(_ day: CivilDate) -> String {
        longDateFormat?.format(day) ?? day.longEnglish
    }

    private func readDate(_ text: String) -> CivilDate? {
        guard let format = longDateFormat else { return CivilDate(longEnglish: Substring(text)) }
        return format.parse(Substring(text))
    }
}
