import Foundation

extension Trip {
    /// The trip in words, for clients that only understand text:
    /// `Vancouver, Canada: 3 nights from March 5, 2027` (the date in UTC).
    public var sentence: String {
        draft.sentence
    }
}

extension TripDraft {
    /// The sentence a trip with these fields is written as.
    public var sentence: String {
        let stay = nights == 1 ? "1 night" : "\(nights) nights"
        return "\(city), \(country): \(stay) from \(CivilDate(start).longEnglish)"
    }

    /// Reads a sentence back into a draft, as `ProxyRepresentation(importing:)` does.
    ///
    ///     try TripDraft(sentence: "Lisbon, Portugal: 4 nights from May 1, 2027")
    ///     // Lisbon, Portugal, 4 nights, starting 2027-05-01T00:00:00Z, price 0
    ///
    /// The city is everything before the last ", " ahead of the colon, so a city may
    /// contain a comma but a country may not.
    public init(sentence text: String) throws(TripsError) {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = line.range(of: ": ", options: .backwards),
            let comma = line[..<colon.lowerBound].range(of: ", ", options: .backwards)
        else { throw .unreadableSentence(line) }
        let city = line[..<comma.lowerBound].trimmingCharacters(in: .whitespaces)
        let country = line[comma.upperBound..<colon.lowerBound].trimmingCharacters(in: .whitespaces)
        let stay = line[colon.upperBound...].split(separator: " ", maxSplits: 3)
        guard stay.count == 4, let nights = Int(stay[0]), stay[1] == (nights == 1 ? "night" : "nights"),
            stay[2] == "from", let day = CivilDate(longEnglish: stay[3])
        else { throw .unreadableSentence(line) }
        self.init(city: city, country: country, nights: nights, price: 0, start: day.midnight)
        try validate()
    }
}
