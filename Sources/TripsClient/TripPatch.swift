import Foundation
import TripsDomain
import TripsFormats

/// A JSON merge patch of one trip (RFC 7396): only the fields set here change.
///
///     try await client.patch(2, TripPatch(nights: 5, notes: "Granville Island"))
public struct TripPatch: Sendable, Hashable {
    public var city: String?
    public var country: String?
    public var nights: Int?
    public var isFavorite: Bool?
    public var imageName: String?
    public var price: Decimal?
    public var start: Date?
    public var notes: String?

    public init(
        city: String? = nil, country: String? = nil, nights: Int? = nil, isFavorite: Bool? = nil, imageName: String? = nil,
        price: Decimal? = nil, start: Date? = nil, notes: String? = nil
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

    /// The patch as JSON: `{"nights":5,"notes":"Granville Island"}`.
    var json: [UInt8] {
        var members: [(Trip.Field, (inout JSONWriter) -> Void)] = []
        if let city { members.append((.city, { $0.appendString(city) })) }
        if let country { members.append((.country, { $0.appendString(country) })) }
        if let nights { members.append((.nights, { $0.appendInteger(nights) })) }
        if let isFavorite { members.append((.isFavorite, { $0.appendBool(isFavorite) })) }
        if let imageName { members.append((.imageName, { $0.appendString(imageName) })) }
        if let price { members.append((.price, { $0.appendRaw(price.description) })) }
        if let start { members.append((.start, { $0.appendTimestamp(start) })) }
        if let notes { members.append((.notes, { $0.appendString(notes) })) }
        var writer = JSONWriter()
        writer.appendRaw("{")
        for (index, (field, write)) in members.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(field.rawValue)
            writer.appendRaw(":")
            write(&writer)
        }
        writer.appendRaw("}")
        return writer.bytes
    }
}
