/// The plural category of a whole number, as CLDR's plural rules name them: the form of
/// a word that goes with it ("1 noc", "2 noce", "5 nocy", "22 noce" in Polish).
///
/// Rules from CLDR's plurals.xml (cardinal), for integers (`v = 0`, no visible fraction),
/// so `i` and `n` are the number itself: https://www.unicode.org/cldr/charts/latest/supplemental/language_plural_rules.html
public enum PluralCategory: Sendable, Hashable {
    case one, few, many, other
}

extension Language {
    public func pluralCategory(_ n: Int) -> PluralCategory {
        switch self {
        case .english, .german:
            // one: i = 1 and v = 0
            return n == 1 ? .one : .other
        case .spanish:
            // one: n = 1; many: e = 0 and i != 0 and i % 1000000 = 0 and v = 0
            if n == 1 { return .one }
            return n != 0 && n % 1_000_000 == 0 ? .many : .other
        case .french, .brazilianPortuguese:
            // one: i = 0,1; many: e = 0 and i != 0 and i % 1000000 = 0 and v = 0
            if n == 0 || n == 1 { return .one }
            return n % 1_000_000 == 0 ? .many : .other
        case .japanese:
            return .other
        case .polish:
            // one: i = 1 and v = 0; few: v = 0 and i % 10 = 2..4 and i % 100 != 12..14;
            // many: v = 0 and (i != 1 and i % 10 = 0..1, or i % 10 = 5..9, or i % 100 = 12..14)
            if n == 1 { return .one }
            let (lastDigit, lastTwo) = (n % 10, n % 100)
            if (2...4).contains(lastDigit) && !(12...14).contains(lastTwo) { return .few }
            return .many
        }
    }
}
