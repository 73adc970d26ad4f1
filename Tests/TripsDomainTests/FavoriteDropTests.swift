import Foundation
import Testing
import TripsDomain
import TripsTestSupport

@testable import TripsFormats

@Suite struct FavoriteDropTests {
    @Test func aDropSaysWhichTripsNewlyBecameFavoritesInListOrder() throws {
        var list = TripList.samples  // 1 and 5 are favorites
        let added = try list.makeFavorites(FavoriteDrop(items: [.id(4), .id(2), .id(1)]))
        #expect(added == [2, 4])
        #expect(list.trips.filter(\.isFavorite).map(\.id) == [1, 2, 4, 5])
    }

    /// The favorites the list keeps by id are those a pass over the list finds, in its order,
    /// after any run of every kind of change.
    @Test func theFavoritesAreAlwaysThoseInTheList() throws {
        var random = SplitMix64(seed: 1016)
        var list = TripList.samples
        for step in 0..<600 {
            let ids = Array(list.trips.map(\.id))
            let some = Array(ids.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)))
            var draft = list.trips.first { _ in true }?.draft ?? TripList.samples.trips.first { _ in true }!.draft
            draft.isFavorite = Bool.random(using: &random)
            let change: TripChange
            switch ids.isEmpty ? 0 : Int.random(in: 0..<7, using: &random) {
            case 0: change = .add([draft, draft], before: ids.randomElement(using: &random))
            case 1: change = .delete(some)
            case 2: change = .replace(some[0], draft)
            case 3: change = .setFavorite(some[0], Bool.random(using: &random))
            case 4: change = .makeFavorites(some)
            case 5: change = .move(ReorderDifference(sources: some, destination: .end))
            default: change = .sort(Bool.random(using: &random) ? .price : .start)
            }
            _ = try list.apply(change)
            #expect(list.favorites == Array(list.trips.filter(\.isFavorite)), "step \(step): \(change)")
        }
    }

    @Test func aDropOfFavoritesChangesNothingAndSaysSo() throws {
        var list = TripList.samples
        let added = try list.makeFavorites(FavoriteDrop(items: [.id(1), .id(5)]))
        #expect(added.isEmpty)
        #expect(list.revision == TripList.samples.revision)
    }

    @Test func unknownIdsFailTheWholeDrop() {
        var list = TripList.samples
        #expect(throws: TripsError.unknownTrips([99])) { try list.makeFavorites(FavoriteDrop(items: [.id(2), .id(99)])) }
        #expect(list == TripList.samples)
    }

    @Test func textLinesNameTripsByCityOrSentence() throws {
        var list = TripList.samples
        let drop = FavoriteDrop(text: "vancouver\r\n\nAtacama, Chile: 6 nights from April 20, 2027\n  ZURICH  \n")
        let atacama = "Atacama, Chile: 6 nights from April 20, 2027"
        #expect(drop.items == [.name("vancouver"), .sentence(try TripDraft(sentence: atacama), line: atacama), .name("ZURICH")])
        let added = try list.makeFavorites(drop)
        #expect(added == [2, 3, 6])
    }

    @Test func aSentenceMatchesAsACityDoesAndSeveralMatchesAreAnError() throws {
        var list = TripList.samples
        #expect(try list.makeFavorites(FavoriteDrop(text: "VANCOUVER, canada: 3 Nights From March 5, 2027")) == [2])
        #expect(try list.makeFavorites(FavoriteDrop(text: "Zu\u{308}rich, Switzerland: 1 night from December 11, 2027")) == [6])
        try list.add(TripList.samples[2]!.draft)  // a second Vancouver trip with the same sentence
        let before = list
        #expect(throws: TripsError.ambiguousName("Vancouver, Canada: 3 nights from March 5, 2027", candidates: [2, 7])) {
            try list.makeFavorites(FavoriteDrop(text: "Vancouver, Canada: 3 nights from March 5, 2027"))
        }
        #expect(list == before)
    }

    @Test func aNameThatMatchesNoTripOrSeveralIsAnError() throws {
        var list = TripList.samples
        try list.add(TripDraft(city: "Vancouver", country: "United States", nights: 2, price: 10, start: Trip.samples[0].start))
        let before = list
        #expect(throws: TripsError.noTripNamed("Paris")) { try list.makeFavorites(FavoriteDrop(text: "Seattle\nParis")) }
        #expect(throws: TripsError.ambiguousName("Vancouver", candidates: [2, 7])) {
            try list.makeFavorites(FavoriteDrop(text: "Vancouver"))
        }
        #expect(list == before)
        // The exact sentence still tells the two apart.
        let added = try list.makeFavorites(FavoriteDrop(text: "Vancouver, Canada: 3 nights from March 5, 2027"))
        #expect(added == [2])
    }

    @Test func dropsReadFromJSONTripsOrIds() throws {
        let trips = try FavoriteDrop(json: JSONValue(parsing: Array(#"[{"id": 2, "city": "Vancouver"}, 3]"#.utf8)))
        #expect(trips.items == [.id(2), .id(3)])
        #expect(throws: TripsError.invalidMember("id", "each dropped trip needs its id")) {
            try FavoriteDrop(json: JSONValue(parsing: Array(#"[{"city": "Vancouver"}]"#.utf8)))
        }
        // One trip alone, as GET /trips/2 answers it, is a drop of one.
        #expect(try FavoriteDrop(json: JSONValue(parsing: Array(#"{"id": 2, "city": "Vancouver"}"#.utf8))).items == [.id(2)])
        #expect(throws: TripsError.self) { try FavoriteDrop(json: JSONValue(parsing: Array("2".utf8))) }
        #expect(throws: TripsError.self) { try FavoriteDrop(json: JSONValue(parsing: Array(#"["2"]"#.utf8))) }
    }

    /// What a drop resolves to, found the way it was before names were looked up through the
    /// folded text the list keeps: every line folded and compared with every trip, folded
    /// (each trip once, as `existing` counted them).
    private static func naivelyResolved(_ drop: FavoriteDrop, in list: TripList) -> Result<[Trip.ID], TripsError> {
        func only(_ matches: [Trip], _ line: String) throws(TripsError) -> Trip.ID {
            guard let first = matches.first else { throw .noTripNamed(line) }
            guard matches.count == 1 else { throw .ambiguousName(line, candidates: matches.map(\.id)) }
            return first.id
        }
        func day(_ date: Date) -> Double { (date.timeIntervalSince1970 / 86_400).rounded(.down) }
        let trips = Array(list.trips)
        return Result { () throws(TripsError) in
            var seen = Set<Trip.ID>()
            return try drop.items.map { (item) throws(TripsError) in
                switch item {
                case .id(let id):
                    return id
                case .name(let line):
                    return try only(trips.filter { $0.city.searchFolded == line.searchFolded }, line)
                case .sentence(let draft, let line):
                    let described = trips.filter { trip in
                        trip.nights == draft.nights && day(trip.start) == day(draft.start)
                            && trip.city.searchFolded == draft.city.searchFolded && trip.country.searchFolded == draft.country.searchFolded
                    }
                    if !described.isEmpty { return try only(described, line) }
                    return try only(trips.filter { $0.city.searchFolded == line.searchFolded }, line)
                }
            }.filter { seen.insert($0).inserted }
        }
    }

    /// The folded words the list keeps with each trip follow every change: after any run of
    /// creates, renames, deletes, moves and sorts, a drop of each trip's name, sentence and a
    /// few names no trip has resolves as folding every trip again would (the same ids, the
    /// same ambiguous candidates in list order, the same first error).
    @Test(.tags(.slow)) func dropsResolveAsFoldingEveryTripWouldAfterAnyChanges() throws {
        var random = SplitMix64(seed: 2026)
        var list = TripList.samples
        let cities = ["Zürich", "ZURICH", "Kyōto", "kyoto", "Seattle", "São Paulo", "Sao Paulo", "Ærø"]
        for step in 0..<300 {
            let ids = Array(list.trips.map(\.id))
            let some = Array(ids.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)))
            var draft = try #require(TripList.samples[1]).draft
            draft.city = cities.randomElement(using: &random)!
            draft.country = Bool.random(using: &random) ? "Switzerland" : "SWITZERLAND"
            draft.nights = Int.random(in: 1...3, using: &random)
            let change: TripChange
            switch ids.count < 4 ? 0 : Int.random(in: 0..<5, using: &random) {
            case 0: change = .add([draft], before: ids.randomElement(using: &random))
            case 1: change = .delete([some[0]])
            case 2: change = .replace(some[0], draft)  // a rename, as PATCH makes it
            case 3: change = .move(ReorderDifference(sources: some, destination: .end))
            default: change = .sort(Bool.random(using: &random) ? .price : .start)
            }
            _ = try list.apply(change)
            let trips = Array(list.trips)
            var lines = trips.map(\.city) + trips.map(\.sentence) + ["Paris", "zurich", "KYOTO"]
            lines.shuffle(using: &random)
            for text in lines.prefix(4) + [lines.prefix(3).joined(separator: "\n"), lines.joined(separator: "\n")] {
                let drop = FavoriteDrop(text: text)
                let resolved = Result { () throws(TripsError) in try list.resolve(drop) }
                #expect(resolved == Self.naivelyResolved(drop, in: list), "step \(step): \(change), lines \(text)")
            }
        }
    }

    /// A drop costs one pass over the list and one lookup per line, not lines x trips folds:
    /// 20,000 lines against 2,000 trips took minutes when each line was compared with every
    /// trip, folded.
    @Test func aLargeDropCostsAPassOverTheListAndALookupPerLine() throws {
        var list = TripList()
        let drafts = (0..<2_000).map { index in
            TripDraft(city: "Ciudad \(index)", country: "España", nights: 2, price: 1, start: Trip.samples[0].start)
        }
        try list.add(drafts, before: nil)
        try list.add(TripDraft(city: "Seattle", country: "United States", nights: 2, price: 1, start: Trip.samples[0].start))
        let drop = FavoriteDrop(text: String(repeating: "Seattle\nCIUDAD 1999\n", count: 10_000))
        let started = ContinuousClock.now
        #expect(try list.makeFavorites(drop) == [2_000, 2_001])
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// ASCII folds to its lower case without Foundation, exactly as Foundation folds it.
    @Test func asciiFoldsAsFoundationFoldsIt() {
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        #expect(ascii.searchFolded == ascii.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
        // With a capital and without (the text is then itself), short and past 15 bytes.
        for scalar in ascii.unicodeScalars {
            for text in ["A\(scalar)z", "a\(scalar)z", "a long\(scalar)country name", "A long\(scalar)country name"] {
                #expect(text.searchFolded == text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
            }
        }
        #expect("Zürich".searchFolded == "zurich")
    }

    /// Read eight bytes at a time, a string is ASCII unless any byte, in a whole word or in
    /// the tail after it, is not.
    @Test func asciiIsToldWhereverTheOtherCharacterStands() {
        for length in 0...20 {
            let ascii = String(repeating: "a", count: length)
            #expect(ascii.isAllASCII)
            for position in 0...length {
                var text = ascii
                text.insert("é", at: text.index(text.startIndex, offsetBy: position))
                #expect(!text.isAllASCII, "\(text)")
            }
        }
        #expect("\u{7F}".isAllASCII && !"\u{80}".isAllASCII)
    }

    /// Names with visible ASCII at both ends are taken as they are; any other end is trimmed.
    @Test func namesAreTrimmedOnlyOfSurroundingWhitespace() {
        for (name, trimmed) in [
            ("Lima", "Lima"), (" Lima", "Lima"), ("Lima\n", "Lima"), ("\u{A0}Lima\u{2003}", "Lima"), ("Éze", "Éze"), ("a b", "a b"),
            ("", ""), (" ", ""), ("é ", "é"),
        ] {
            #expect(name.trimmedOfWhitespace == trimmed, "\(name)")
        }
    }

    /// A search finds what folding every trip's words would find, whether notes are ASCII
    /// (compared byte by byte, not kept folded) or not.
    @Test func searchesFindWhatFoldingEveryTripWouldFind() throws {
        var list = TripList()
        let start = Trip.samples[0].start
        for (city, notes) in [("Zürich", "The Driest DESERT"), ("Kyoto", "Café au lait, ÉTÉ"), ("Lima", ""), ("Oslo", "ab")] {
            try list.add(TripDraft(city: city, country: "Perú", nights: 1, price: 1, start: start, notes: notes))
        }
        for search in ["driest", "DESERT", "désert", "cafe", "CAFÉ", "ete", "zur", "PERU", "t d", "abc", "b", "é", "\u{301}", "x"] {
            let folded = search.searchFolded
            let naive = list.trips.filter { trip in
                folded.isEmpty
                    || [trip.city, trip.country, trip.notes].contains { $0.searchFolded.contains(folded) }
            }
            #expect(list.trips.matching(TripQuery(search: search)) == naive, "\(search)")
        }
    }
}
