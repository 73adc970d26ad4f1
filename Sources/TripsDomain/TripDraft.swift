import Foundation

/// A trip without an id: what a client sends to create one, checked before it is accepted.
public struct TripDraft: Sendable, Hashable {
    public var city: String
    public var country: String
    public var nights: Int
    public var isFavorite: Bool
    public var imageName: String
    /// The price with its digits (`Price`); `price` reads and sets its `Decimal`.
    public var exactPrice: Price
    public var start: Date
    public var notes: String

    /// Validation limits, named so that messages and the spec can quote them.
    public enum Limits {
        public static let nameLength = 200
        public static let nights = 1...365
        public static let notesLength = 10_000
    }

    /// Makes a draft; `validate()` says whether the list will take it. The city and the
    /// country are trimmed of surrounding whitespace, as a sentence reads them back.
    public init(
        city: String, country: String, nights: Int, isFavorite: Bool = false,
        imageName: String = "", price: Price, start: Date, notes: String = ""
    ) {
        self.city = city.trimmedOfWhitespace
        self.country = country.trimmedOfWhitespace
        self.nights = nights
        self.isFavorite = isFavorite
        self.imageName = imageName
        self.exactPrice = price
        self.start = start
        self.notes = notes
    }

    /// A draft priced at `price` (described once, here).
    public init(
        city: String, country: String, nights: Int, isFavorite: Bool = false,
        imageName: String = "", price: Decimal, start: Date, notes: String = ""
    ) {
        self.init(
            city: city, country: country, nights: nights, isFavorite: isFavorite, imageName: imageName, price: Price(price),
            start: start, notes: notes)
    }

    /// The price as a number; setting it describes the new price once.
    public var price: Decimal {
        get { exactPrice.value }
        set { exactPrice = Price(newValue) }
    }

    /// Throws every rule the draft breaks, each naming its field (`.several` for more than one).
    public func validate() throws(TripsError) {
        if let error = TripsError.combining(violations()) { throw error }
    }

    /// The rules the draft breaks, in field order, leaving out `skipped` fields (ones a
    /// reader could not read, which already have an error of their own).
    package func violations(skipping skipped: Set<Trip.Field> = []) -> [TripsError] {
        if isPlainlyValid { return [] }
        var errors: [TripsError] = []
        func check(_ field: Trip.Field, _ reasons: [String]) {
            guard !skipped.contains(field) else { return }
            errors += reasons.map { .invalidField(field, $0) }
        }
        check(.city, Self.nameViolations(city))
        check(.country, Self.nameViolations(country) + (Self.containsCommaSpace(country) ? [Self.countryCommaRule] : []))
        check(
            .nights, Limits.nights.contains(nights) ? [] : ["must be between \(Limits.nights.lowerBound) and \(Limits.nights.upperBound)"])
        check(.imageName, imageName.hasMoreCharacters(than: Limits.nameLength) ? ["must be at most \(Limits.nameLength) characters"] : [])
        check(
            .imageName,
            imageName.unicodeScalars.contains(where: \.isControlOrLineBreak) ? ["must not hold control characters or line breaks"] : [])
        check(.price, !price.isNaN && price >= 0 ? [] : ["must be zero or more"])
        check(.notes, notes.hasMoreCharacters(than: Limits.notesLength) ? ["must be at most \(Limits.notesLength) characters"] : [])
        check(.notes, notes.utf8.contains(0) ? [Self.nulRule] : [])
        return errors
    }

    /// Whether the draft is one of the common kind that breaks no rule, told in one pass over
    /// each string's bytes: names of printable ASCII (whose characters are their bytes, none a
    /// control or a line break) that start visibly (not blank), within their lengths; nights
    /// in range; a price that starts with a digit; notes short enough in bytes, without NUL.
    /// Any other draft, valid or not, is judged rule by rule; this only spares the usual one
    /// the reasons, sets and scalar walks.
    private var isPlainlyValid: Bool {
        Self.isPlainASCII(city, startingVisibly: true) && Self.isPlainASCII(country, startingVisibly: true)
            && !Self.containsCommaSpace(country) && Limits.nights.contains(nights)
            && Self.isPlainASCII(imageName, startingVisibly: false) && exactPrice.digits.utf8.first.map(Self.isDigit) ?? false
            && Self.isPlainNotes(notes)
    }

    /// A price whose digits start with one is neither negative nor NaN.
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Notes of at most `Limits.notesLength` bytes (so no more characters) without U+0000.
    private static func isPlainNotes(_ notes: String) -> Bool {
        var notes = notes
        return notes.withUTF8 { bytes in bytes.count <= Limits.notesLength && !bytes.contains(0) }
    }

    /// Printable ASCII (space to `~`), at most `Limits.nameLength` bytes, and when
    /// `startingVisibly`, neither empty nor starting with a space.
    private static func isPlainASCII(_ name: String, startingVisibly: Bool) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count <= Limits.nameLength else { return false }
            if startingVisibly, bytes.first.map({ $0 == UInt8(ascii: " ") }) ?? true { return false }
            return bytes.allSatisfy { (0x20...0x7E).contains($0) }
        }
    }

    /// A city or country must survive its trip's sentence: something besides whitespace, no
    /// control character (C0, DEL, C1) or line break, and not too long.
    private static func nameViolations(_ name: String) -> [String] {
        var reasons: [String] = []
        // A name that starts with visible ASCII (most names) is not blank, without asking each character.
        let startsVisible = name.utf8.first.map { (0x21...0x7E).contains($0) } ?? false
        if !startsVisible && name.allSatisfy(\.isWhitespace) { reasons.append("must not be blank") }
        if name.hasMoreCharacters(than: Limits.nameLength) { reasons.append("must be at most \(Limits.nameLength) characters") }
        if name.unicodeScalars.contains(where: \.isControlOrLineBreak) {
            reasons.append("must not hold control characters or line breaks")
        }
        return reasons
    }

    /// Whether ", " occurs among the scalars (a combining mark after the space would hide
    /// it from a search by characters, but not from the sentence reader). Both are ASCII, whose
    /// bytes occur in UTF-8 only as themselves, so the bytes are searched.
    private static func containsCommaSpace(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            bytes.indices.dropLast().contains { bytes[$0] == UInt8(ascii: ",") && bytes[$0 + 1] == UInt8(ascii: " ") }
        }
    }

    /// Notes may hold line breaks and tabs, but not U+0000: PostgreSQL's text cannot hold it,
    /// and a trip both stores take is one either store can keep. (The names' rule against
    /// control characters already covers it.)
    private static let nulRule = "must not hold U+0000 (NUL)"

    /// A sentence's country is what follows the last ", " before ": ", so a city may hold
    /// ", " (`Washington, D.C.`) and a country may not.
    private static let countryCommaRule =
        #"must not contain ", " (a comma and a space): in a sentence, the country is what follows the last one"#
}

extension Unicode.Scalar {
    /// C0, DEL and C1 controls, and the separators that end a line (U+2028, U+2029).
    package var isControlOrLineBreak: Bool {
        // ASCII's controls are C0 and DEL, and it has no line separator: no Unicode tables asked.
        if isASCII { return value < 0x20 || value == 0x7F }
        return switch properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}

extension String {
    /// Whether the string has more than `limit` characters, counted only when it has more
    /// bytes than that: a character is at least one byte.
    package func hasMoreCharacters(than limit: Int) -> Bool {
        utf8.count > limit && count > limit
    }

    /// The string without surrounding whitespace and line breaks. Most names have none:
    /// those are returned as they are, without Foundation's trimming, which costs more than
    /// the rest of reading a stored trip.
    package var trimmedOfWhitespace: String {
        // Visible ASCII (`!` to `~`) is in no whitespace set, and asks for no `CharacterSet`;
        // a byte of it is a whole scalar in UTF-8, so the bytes at the ends tell.
        let visible: ClosedRange<UInt8> = 0x21...0x7E
        if let first = utf8.first, let last = utf8.last, visible.contains(first) && visible.contains(last) { return self }
        guard let first = unicodeScalars.first, let last = unicodeScalars.last else { return self }
        let surrounding = CharacterSet.whitespacesAndNewlines
        guard surrounding.contains(first) || surrounding.contains(last) else { return self }
        return trimmingCharacters(in: surrounding)
    }
}

extension Trip.Field {
    /// Whether a draft may leave this field out (it then takes its default).
    package var isOptional: Bool {
        switch self {
        case .isFavorite, .imageName, .notes, .photo: true
        case .id, .city, .country, .nights, .price, .start: false
        }
    }
}
