import Foundation
import Testing
import TripsDomain
import TripsTestSupport

/// Every trip must survive its own sentence: the names that would not are refused.
@Suite struct TripNameTests {
    private func draft(city: String, country: String = "Canada") -> TripDraft {
        TripDraft(city: city, country: country, nights: 3, price: 1, start: TripDate.parse("2027-03-05")!)
    }

    @Test(arguments: [
        "Van\ncouver", "Van\rcouver", "Van\u{0}couver", "Van\u{7F}couver", "Van\u{85}couver", "Van\u{2028}couver", "Van\tcouver",
    ])
    func aNameWithAControlCharacterOrLineBreakIsRefused(city: String) {
        #expect(throws: TripsError.invalidField(.city, "must not hold control characters or line breaks")) {
            try draft(city: city).validate()
        }
    }

    @Test func namesAreTrimmedAndMustNotBeBlank() throws {
        #expect(draft(city: "  Vancouver \u{3000}").city == "Vancouver")
        #expect(throws: TripsError.invalidField(.city, "must not be blank")) { try draft(city: " \u{3000} ").validate() }
    }

    /// The contract's `maxLength` counts code points: a client's change must keep each text
    /// within its limit counted so too, while the list takes (and so replays) what it held.
    @Test func aClientsChangeMustKeepTheLimitsInCodePointsToo() throws {
        let marked = String(repeating: "e\u{301}", count: 200)  // 200 characters, 400 code points
        let rule = "must be at most 200 characters, counted as Unicode code points"
        #expect(TripChange.add(draft(city: marked)).codePointLimitViolation == .invalidField(.city, rule))
        #expect(TripChange.replace(2, draft(city: "Oslo", country: marked)).codePointLimitViolation == .invalidField(.country, rule))
        #expect(
            TripChange.add([draft(city: "Oslo"), draft(city: marked)], before: nil).codePointLimitViolation
                == .inElement(1, .invalidField(.city, rule)))
        var noted = draft(city: "Oslo")
        noted.notes = String(repeating: "e\u{301}", count: 5_001)
        #expect(
            TripChange.add(noted).codePointLimitViolation
                == .invalidField(.notes, "must be at most 10000 characters, counted as Unicode code points"))
        // Within the limit in code points, or over it in characters too (`violations` says so).
        #expect(TripChange.add(draft(city: String(repeating: "é", count: 200))).codePointLimitViolation == nil)
        #expect(TripChange.add(draft(city: String(repeating: "a", count: 201))).codePointLimitViolation == nil)
        #expect(TripChange.setFavorite(2, true).codePointLimitViolation == nil)
        var list = TripList.samples
        try list.apply(.add(draft(city: marked)))  // an old record holding one still replays
        #expect(list[7]?.city == marked)
    }

    @Test func aCountryMayNotHoldACommaAndASpaceButACityMay() throws {
        try draft(city: "Washington, D.C.", country: "United States").validate()
        #expect(throws: TripsError.self) { try draft(city: "Vancouver", country: "Canada, BC").validate() }
        try draft(city: "Vancouver", country: "Canada,BC").validate()
    }

    /// Lengths are counted in characters, however many bytes each takes.
    @Test func lengthsAreCountedInCharactersNotBytes() throws {
        try draft(city: String(repeating: "é", count: 200)).validate()
        try draft(city: String(repeating: "e\u{301}", count: 200)).validate()
        #expect(throws: TripsError.invalidField(.city, "must be at most 200 characters")) {
            try draft(city: String(repeating: "é", count: 201)).validate()
        }
        var trip = draft(city: "Kyoto")
        trip.notes = String(repeating: "ü", count: 10_000)
        try trip.validate()
        trip.notes += "a"
        #expect(throws: TripsError.invalidField(.notes, "must be at most 10000 characters")) { try trip.validate() }
    }

    /// Printable ASCII takes a shorter way through the rules (`isPlainlyValid`): at their
    /// limits and just past them, with a leading space or nothing, it judges as the rules do.
    @Test func asciiNamesAndNotesAreJudgedAlikeAtTheirLimits() throws {
        var trip = draft(city: String(repeating: "a", count: 200))
        trip.imageName = String(repeating: "b", count: 200)
        trip.notes = String(repeating: "c", count: 10_000)
        try trip.validate()
        trip.imageName = ""
        trip.city = " Kyoto"  // set past the trimming initializer: not blank
        try trip.validate()
        let breaks: [(TripsError, (inout TripDraft) -> Void)] = [
            (.invalidField(.city, "must be at most 200 characters"), { $0.city = String(repeating: "a", count: 201) }),
            (.invalidField(.city, "must not be blank"), { $0.city = "   " }),
            (.invalidField(.imageName, "must be at most 200 characters"), { $0.imageName = String(repeating: "b", count: 201) }),
            (.invalidField(.imageName, "must not hold control characters or line breaks"), { $0.imageName = "a\tb" }),
            (.invalidField(.notes, "must be at most 10000 characters"), { $0.notes += "c" }),
            (.invalidField(.notes, "must not hold U+0000 (NUL)"), { $0.notes = "a\u{0}b" }),
        ]
        for (expected, change) in breaks {
            var broken = trip
            change(&broken)
            #expect(throws: expected) { try broken.validate() }
        }
    }

    /// A name that starts with whitespace is blank only when all of it is.
    @Test func aNameIsBlankOnlyWhenAllOfItIsWhitespace() throws {
        var trip = draft(city: "Kyoto")
        trip.city = "\u{3000}Kyoto"
        try trip.validate()
        trip.city = "\u{3000}\u{2003}"
        #expect(throws: TripsError.invalidField(.city, "must not be blank")) { try trip.validate() }
        #expect(throws: TripsError.self) { try draft(city: "Abidjan", country: "Côte, d'Ivoire").validate() }
    }

    @Test func everyBrokenRuleIsReported() {
        var bad = draft(city: " ", country: "A, B")
        bad.nights = 0
        bad.price = -1
        let error = #expect(throws: TripsError.self) { try bad.validate() }
        #expect(error?.flattened.count == 4)
    }

    /// For many generated trips, reading the sentence back gives the same city, country,
    /// nights and start day. Names mix commas, colons, accents and scripts.
    @Test(.tags(.slow)) func everyValidTripSurvivesItsSentence() throws {
        var random = SplitMix64(seed: 0x7A1F)
        let pieces = [
            "Zürich", "São Paulo", ", ", ": ", ",", ":", " ", "D.C.", "Ñ", "東京", "-", "'", "from", "1 night", "nights",
            "Côte d'Ivoire", "a", "Z", "\u{301}", "e\u{301}", "🇨🇦", "2027", "May 1",
        ]
        func name() -> String {
            (0..<Int.random(in: 1...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        var checked = 0
        for _ in 0..<5_000 {
            let day = Int.random(in: -719_162...2_932_896, using: &random)  // years 1...9999
            let candidate = TripDraft(
                city: name(), country: name(), nights: Int.random(in: 1...365, using: &random), price: 0,
                start: Date(timeIntervalSince1970: Double(day) * 86_400 + Double(Int.random(in: 0..<86_400, using: &random))))
            guard (try? candidate.validate()) != nil else { continue }
            let read = try TripDraft(sentence: candidate.sentence)
            #expect(read.city == candidate.city, "\(candidate.sentence)")
            #expect(read.country == candidate.country, "\(candidate.sentence)")
            #expect(read.nights == candidate.nights)
            #expect(read.sentence == candidate.sentence)
            checked += 1
        }
        #expect(checked > 1_000)
    }
}
