import Foundation

/// `Codable` with the same ten keys and formats as the service's JSON, for Swift
/// clients that use `JSONEncoder`/`JSONDecoder`: `start` as RFC 3339, `price` as an
/// exact number, `photo` as its object or null.
extension Trip: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Field.self)
        let startText = try container.decode(String.self, forKey: .start)
        guard let start = TripDate.parse(startText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .start, in: container, debugDescription: "not an RFC 3339 timestamp: \(startText)")
        }
        self.init(
            id: try container.decode(Int.self, forKey: .id),
            city: try container.decode(String.self, forKey: .city),
            country: try container.decode(String.self, forKey: .country),
            nights: try container.decode(Int.self, forKey: .nights),
            isFavorite: try container.decodeIfPresent(Bool.self, forKey: .isFavorite) ?? false,
            imageName: try container.decodeIfPresent(String.self, forKey: .imageName) ?? "",
            price: try container.decode(Decimal.self, forKey: .price),
            start: start,
            notes: try container.decodeIfPresent(String.self, forKey: .notes) ?? "",
            photo: try container.decodeIfPresent(TripPhoto.self, forKey: .photo))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Field.self)
        try container.encode(id, forKey: .id)
        try container.encode(city, forKey: .city)
        try container.encode(country, forKey: .country)
        try container.encode(nights, forKey: .nights)
        try container.encode(isFavorite, forKey: .isFavorite)
        try container.encode(imageName, forKey: .imageName)
        try container.encode(price, forKey: .price)
        try container.encode(TripDate.rfc3339(start), forKey: .start)
        try container.encode(notes, forKey: .notes)
        try container.encode(photo, forKey: .photo)
    }
}
