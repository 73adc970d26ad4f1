import TripsFormats

/// `Codable` in the form the trip's JSON shows: `url`, `type`, `width`, `height`, `bytes`.
extension TripPhoto: Codable {
    private enum CodingKeys: String, CodingKey {
        case url, type, width, height, bytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let url = try container.decode(String.self, forKey: .url)
        let type = try container.decode(String.self, forKey: .type)
        guard let (digest, format) = Self.parseURL(url), format.mediaType.description == type,
            let photo = TripPhoto(
                digest: digest, format: format, width: try container.decode(Int.self, forKey: .width),
                height: try container.decode(Int.self, forKey: .height), byteCount: try container.decode(Int.self, forKey: .bytes))
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .url, in: container, debugDescription: "not a photo the service stored: \(url) as \(type)")
        }
        self = photo
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(format.mediaType.description, forKey: .type)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(byteCount, forKey: .bytes)
    }
}
