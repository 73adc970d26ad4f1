import Foundation

extension Trip {
    /// The trip in words, for clients that only understand text:
    /// `Vancouver, Canada: 3 nights from March 5, 2027` (the date in UTC).
    public var sentence: String {
        sentence(in: .english)
    }

    /// The sentence in `language`: `Vancouver, Canada : 3 nuits à partir du 5 mars 2027`.
    public func sentence(in language: Language) -> String {
        Self.sentence(city: city, country: country, nights: nights, start: start, in: language)
    }

    /// The sentence for these fields, built straight from them (a trip's names are already
    /// trimmed: going through `draft` would trim them again, for every trip of a list).
    package static func sentence(city: String, country: String, nights: Int, start: Date, in language: Language) -> String {
        "\(city), \(country)\(language.colon)\(language.stay(nights: nights, start: start))"
    }
}

extension TripDraft {
    /// The sentence a trip with these fields is written as.
    public var sentence: String {
        sentence(in: .english)
    }

    public func sentence(in language: Language) -> String {
        Trip.sentence(city: city, country: country, nights: nights, start: start, in: language)
    }

    /// Reads a sentence back into a draft, as `ProxyRepresentation(importing:)` does: in
    /// `language`, or, without one, in the first language (English first) whose words it uses.
    ///
    ///     try TripDraft(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027")
    ///     // Lisbon, Portugal, 4 nights, starting 2027-05-01T00:00:00Z, price 0
    ///
    /// The stay is what follows the last colon (`": "`, or the full-width `"："`), the country
    /// what follows the last ", " before it, and the city everything before that: so a city
    /// may contain ", " (`Washington, D.C.`) and a country may not, which `validate()`
    /// enforces. The separators are found among Unicode scalars, not characters, so a name
    /// that starts with a combining mark cannot merge with the space in front of it and hide
    /// the separator.
    public init(sentence text: String, language: Language? = nil) throws(TripsError) {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let scalars = Array(line.unicodeScalars)
        func lastSeparator(before end: Int, isSeparator: (Int) -> Bool) -> Int? {
            var index = end - 1
            while index >= 0 {
                if isSeparator(index) { return index }
                index -= 1
            }
            return nil
        }
        func isPair(_ first: Unicode.Scalar, at index: Int) -> Bool {
            index + 1 < scalars.count && scalars[index] == first && scalars[index + 1] == " "
        }
        guard let colon = lastSeparator(before: scalars.count, isSeparator: { isPair(":", at: $0) || scalars[$0] == "：" }),
            let comma = lastSeparator(before: colon, isSeparator: { isPair(",", at: $0) })
        else { throw .unreadableSentence(line) }
        func part(_ range: Range<Int>) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            return String(view)
        }
        let stayStart = scalars[colon] == "：" ? colon + 1 : colon + 2
        let stay = part(stayStart..<scalars.count).trimmingCharacters(in: .whitespaces)
        let candidates = language.map { [$0] } ?? Language.allCases
        guard let (nights, day) = candidates.lazy.compactMap({ $0.readStay(stay) }).first else {
            throw .unreadableSentence(line)
        }
        self.init(city: part(0..<comma), country: part((comma + 2)..<colon), nights: nights, price: .zero, start: day.midnight)
        try validate()
    }
}
