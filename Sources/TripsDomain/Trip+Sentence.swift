import Foundation

extension Trip {
    /// The trip in words, for clients that only understand text:
    /// `Vancouver, Canada: 3 nights from March 5, 2027` (the date in UTC).
    public var sentence: String {
        Self.sentence(city: city, country: country, nights: nights, start: start)
    }

    /// The sentence for these fields, built straight from them (a trip's names are already
    /// trimmed: going through `draft` would trim them again, for every trip of a list).
    static func sentence(city: String, country: String, nights: Int, start: Date) -> String {
        let stay = nights == 1 ? "1 night" : "\(nights) nights"
        return "\(city), \(country): \(stay) from \(CivilDate(start).longEnglish)"
    }
}

extension TripDraft {
    /// The sentence a trip with these fields is written as.
    public var sentence: String {
        Trip.sentence(city: city, country: country, nights: nights, start: start)
    }

    /// Reads a sentence back into a draft, as `ProxyRepresentation(importing:)` does.
    ///
    ///     try TripDraft(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027")
    ///     // Lisbon, Portugal, 4 nights, starting 2027-05-01T00:00:00Z, price 0
    ///
    /// The stay is what follows the last ": ", the country what follows the last ", " before
    /// it, and the city everything before that: so a city may contain ", " (`Washington, D.C.`)
    /// and a country may not, which `validate()` enforces. The separators are found among
    /// Unicode scalars, not characters, so a name that starts with a combining mark cannot
    /// merge with the space in front of it and hide the separator.
    public init(sentence text: String) throws(TripsError) {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let scalars = Array(line.unicodeScalars)
        func lastPair(_ first: Unicode.Scalar, before end: Int) -> Int? {
            var index = end - 2
            while index >= 0 {
                if scalars[index] == first && scalars[index + 1] == " " { return index }
                index -= 1
            }
            return nil
        }
        guard let colon = lastPair(":", before: scalars.count), let comma = lastPair(",", before: colon) else {
            throw .unreadableSentence(line)
        }
        func part(_ range: Range<Int>) -> String {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            return String(view)
        }
        let stay = part((colon + 2)..<scalars.count).split(separator: " ", maxSplits: 3)
        guard stay.count == 4, let nights = Int(stay[0]), stay[1] == (nights == 1 ? "night" : "nights"),
            stay[2] == "from", let day = CivilDate(longEnglish: stay[3])
        else { throw .unreadableSentence(line) }
        self.init(city: part(0..<comma), country: part((comma + 2)..<colon), nights: nights, price: 0, start: day.midnight)
        try validate()
    }
}
