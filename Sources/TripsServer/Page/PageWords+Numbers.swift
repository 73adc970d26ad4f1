import Foundation
import TripsDomain

/// Numbers as the page's language writes them: its decimal separator and digit grouping
/// (CLDR's symbols for each locale), over exactly the digits stored.
///
/// A price is a decimal the client sent (`1499.5`): it is shown with every digit it has
/// and no other, `1 499,5` in French, never rounded to cents nor padded to `1 499,50`.
/// That is why this does not go through a number formatter, which works on a rounded
/// binary value and a fixed count of fraction digits.
extension PageWords {
    /// A price, its digits as stored: "1,499.5" in English, "1 499,5" in French, "1499,5"
    /// in Polish (which groups from five digits on).
    func price(_ price: Decimal) -> String {
        let written = price.description
        guard written.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }) else { return written }
        let isNegative = written.hasPrefix("-")
        let unsigned = written.drop { $0 == "-" }
        let parts = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var text = isNegative ? "-" : ""
        text += grouped(parts[0])
        if parts.count == 2 {
            text += separators.decimal
            text += parts[1]
        }
        return text
    }

    /// A whole number, grouped as prices are.
    func number(_ value: Int) -> String {
        value < 0 ? "-" + grouped(String(value.magnitude)[...]) : grouped(String(value)[...])
    }

    /// The integer digits with the grouping separator every three from the right, when
    /// there are at least as many as the language starts grouping at.
    private func grouped(_ digits: Substring) -> String {
        guard digits.count >= 3 + separators.minimumGroupingDigits else { return String(digits) }
        var text = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { text += separators.group }
            text.append(digit)
        }
        return text
    }

    /// CLDR's number symbols for the language's default numbering system.
    private var separators: (group: String, decimal: String, minimumGroupingDigits: Int) {
        switch language {
        case .english, .japanese: (",", ".", 1)
        case .french: ("\u{202F}", ",", 1)
        case .german, .brazilianPortuguese: (".", ",", 1)
        case .spanish: (".", ",", 2)
        case .polish: ("\u{00A0}", ",", 2)
        }
    }
}
