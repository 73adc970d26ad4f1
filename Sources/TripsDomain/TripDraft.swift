import Foundation

/// A trip without an id: what a client sends to create one, checked before it is accepted.
public struct TripDraft: Sendable, Hashable {
    public var city: String
    public var country: String
    public var nights: Int
    public var isFavorite: Bool
    public var imageName: String
    public var price: Decimal
    public var start: Date
    public var notes: String

    /// Validation limits, named so that messages and the spec can quote them.
    public enum Limits {
        public static let nameLength = 200
        public static let nights = 1...365
        public static let notesLength = 10_000
    }

    /// Makes a draft; `validate()` says whether the list will take it.
    public init(
        city: String, country: String, nights: Int, isFavorite: Bool = false,
        imageName: String = "", price: Decimal, start: Date, notes: String = ""
    ) {
        self.city = city
        self.country = country
        self.nights = nights
        self.isFavorite = isFavorite
        self.imageName = imageName
        self.price = price
        self.start = start
        self.notes = notes
    }

    /// Throws the first rule the draft breaks, naming its field.
    public func validate() throws(TripsError) {
        try Self.checkName(city, field: .city)
        try Self.checkName(country, field: .country)
        guard Limits.nights.contains(nights) else {
            throw .invalidField(.nights, "must be between \(Limits.nights.lowerBound) and \(Limits.nights.upperBound)")
        }
        guard imageName.count <= Limits.nameLength else {
            throw .invalidField(.imageName, "must be at most \(Limits.nameLength) characters")
        }
        guard !price.isNaN, price >= 0 else { throw .invalidField(.price, "must be zero or more") }
        guard notes.count <= Limits.notesLength else {
            throw .invalidField(.notes, "must be at most \(Limits.notesLength) characters")
        }
    }

    private static func checkName(_ name: String, field: Trip.Field) throws(TripsError) {
        guard !name.allSatisfy(\.isWhitespace) else { throw .invalidField(field, "must not be blank") }
        guard name.count <= Limits.nameLength else {
            throw .invalidField(field, "must be at most \(Limits.nameLength) characters")
        }
    }
}
