import Foundation

/// One trip: plain data, as the lesson's Trips app keeps it.
public struct Trip: Identifiable, Sendable, Hashable {
    // The stored order packs the fields (a list keeps a million of them): the 8-byte ones
    // first, then `Price` (36 bytes, 4-aligned) and the `Bool` in its tail, 133 bytes in all;
    // in the order JSON writes them, the padding made it 144.
    public let id: Int
    public var city: String
    public var country: String
    public var nights: Int
    public var imageName: String
    public var start: Date
    public var notes: String
    /// The photo, set and cleared only by its own change (`TripChange.setPhoto`): a client
    /// sees it in the trip's JSON but cannot send it, and a replace keeps it.
    public var photo: TripPhoto?
    /// The price with its digits (`Price`); `price` reads and sets its `Decimal`.
    public var exactPrice: Price
    public var isFavorite: Bool

    public init(
        id: Int, city: String, country: String, nights: Int, isFavorite: Bool = false,
        imageName: String = "", price: Price, start: Date, notes: String = "", photo: TripPhoto? = nil
    ) {
        self.id = id
        self.city = city
        self.country = country
        self.nights = nights
        self.isFavorite = isFavorite
        self.imageName = imageName
        self.exactPrice = price
        self.start = start
        self.notes = notes
        self.photo = photo
    }

    /// A trip priced at `price` (described once, here).
    public init(
        id: Int, city: String, country: String, nights: Int, isFavorite: Bool = false,
        imageName: String = "", price: Decimal, start: Date, notes: String = "", photo: TripPhoto? = nil
    ) {
        self.init(
            id: id, city: city, country: country, nights: nights, isFavorite: isFavorite, imageName: imageName,
            price: Price(price), start: start, notes: notes, photo: photo)
    }

    /// The price as a number; setting it describes the new price once.
    public var price: Decimal {
        get { exactPrice.value }
        set { exactPrice = Price(newValue) }
    }

    /// The trip a draft describes, under the id the list issued for it, with `photo`.
    public init(id: Int, draft: TripDraft, photo: TripPhoto? = nil) {
        self.init(
            id: id, city: draft.city, country: draft.country, nights: draft.nights,
            isFavorite: draft.isFavorite, imageName: draft.imageName, price: draft.exactPrice,
            start: draft.start, notes: draft.notes, photo: photo
        )
    }

    /// Everything but the id and the photo: what a client may send and change.
    public var draft: TripDraft {
        TripDraft(
            city: city, country: country, nights: nights, isFavorite: isFavorite,
            imageName: imageName, price: exactPrice, start: start, notes: notes
        )
    }

    /// The ten JSON member names, in the order responses write them.
    public enum Field: String, CaseIterable, Sendable, CodingKey {
        case id, city, country, nights, isFavorite, imageName, price, start, notes, photo
    }
}
