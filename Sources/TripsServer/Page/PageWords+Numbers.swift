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
    /// in Polish (which groups from five digits on). Built from `Price.digits`, with no
    /// `Decimal` work.
    func price(_ price: Price) -> String {
        let written = price.digits.utf8
        guard written.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else {
            return price.digits
        }
        let unsigned = written.drop { $0 == UInt8(ascii: "-") }
        let point = unsigned.firstIndex(of: UInt8(ascii: "."))
        var text = unsigned.startIndex == written.startIndex ? "" : "-"
        text += grouped(unsigned[..<(point ?? unsigned.endIndex)])
        if let point {
            text += separators.decimal
            text += Substring(unsigned[unsigned.index(after: point)...])
        }
        return text
    }

    /// A whole number, grouped as prices are.
    func number(_ value: Int) -> String {
        let digits = String(value.magnitude)
        return value < 0 ? "-" + grouped(digits.utf8[...]) : grouped(digits.utf8[...])
    }

    /// The integer digits (ASCII) with the grouping separator every three from the right,
    /// when there are at least as many as the language starts grouping at.
    private func grouped(_ digits: Substring.UTF8View) -> String {
        let count = digits.count
        guard count >= 3 + separators.minimumGroupingDigits else { return String(Substring(digits)) }
        let group = separators.group
        var text = ""
        text.reserveCapacity(count + count / 3 * group.utf8.count)
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (count - offset) % 3 == 0 { text += group }
            text.unicodeScalars.append(Unicode.Scalar(digit))
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
