import Foundation

/// A language trips are written in: the sentence's words, its plural forms and its long
/// date, as the lesson's `.formatted(date: .long)` writes it for a phone in that language.
///
/// English is written by hand, byte for byte as before there were languages; the others
/// take their long date from Foundation (ICU's locale data, `LongDateFormat`), always for
/// the UTC day.
public enum Language: String, CaseIterable, Sendable, Hashable {
    case english = "en"
    case french = "fr"
    case german = "de"
    case spanish = "es"
    case brazilianPortuguese = "pt-BR"
    case japanese = "ja"
    case polish = "pl"

    /// The language tag (RFC 5646) a response's `Content-Language` names.
    public var tag: String { rawValue }

    /// Where the language stands in `allCases`: how caches file its variants.
    public var index: Int {
        switch self {
        case .english: 0
        case .french: 1
        case .german: 2
        case .spanish: 3
        case .brazilianPortuguese: 4
        case .japanese: 5
        case .polish: 6
        }
    }

    /// The supported language a language tag asks for, by RFC 4647 §3.4 lookup: the tag,
    /// then the tag with its last subtag cut off, and so on (`fr-CA` finds `fr`), compared
    /// case-insensitively. Portuguese without a region is the Brazilian Portuguese this
    /// server writes. Nil: none of ours (and `*`, which the caller decides).
    public init?(lookingUp tag: some StringProtocol) {
        var range = tag.lowercased()
        while !range.isEmpty {
            if let found = Self.allCases.first(where: { $0.rawValue.lowercased() == range }) {
                self = found
                return
            }
            if range == "pt" {
                self = .brazilianPortuguese
                return
            }
            guard let dash = range.lastIndex(of: "-") else { return nil }
            range = String(range[..<dash])
            // A single-letter subtag (an extension or private use) goes with the one after it.
            if let previous = range.lastIndex(of: "-"), range.distance(from: previous, to: range.endIndex) == 2 {
                range = String(range[..<previous])
            }
        }
        return nil
    }

    /// The long date of this language (nil for English, written by hand as it always was).
    package var longDateFormat: LongDateFormat? {
        Self.longDateFormats[index]
    }

    private static let longDateFormats: [LongDateFormat?] = allCases.map { language in
        language == .english ? nil : LongDateFormat(locale: Locale(identifier: language.rawValue.replacingOccurrences(of: "-", with: "_")))
    }
}
