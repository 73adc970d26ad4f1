import Foundation

extension TripList {
    /// The sample trips a new, empty store starts with.
    public static var samples: TripList {
        TripList(trips: Trip.samples)
    }
}

extension Trip {
    /// Six trips in stored order: two share a country, two are favorites, and Zürich
    /// shows off diacritic-insensitive search.
    public static let samples: [Trip] = [
        sample(
            1, "Seattle", "United States", nights: 4, favorite: true, image: "seattle", price: "1499.5", start: "2027-01-12",
            notes: "Pike Place Market at opening time."),
        sample(
            2, "Vancouver", "Canada", nights: 3, image: "vancouver", price: "1299.99", start: "2027-03-05",
            notes: "Stanley Park by bike."),
        sample(
            3, "Atacama", "Chile", nights: 6, image: "atacama", price: "2450", start: "2027-04-20",
            notes: "Stargazing in the driest desert."),
        sample(
            4, "New York", "United States", nights: 5, image: "new-york", price: "1899", start: "2027-06-14",
            notes: "The High Line at sunset."),
        sample(
            5, "Kyoto", "Japan", nights: 7, favorite: true, image: "kyoto", price: "2999.9", start: "2027-10-02",
            notes: "Temples in autumn."),
        sample(
            6, "Zürich", "Switzerland", nights: 1, image: "zurich", price: "349.95", start: "2027-12-11",
            notes: "Christmas market on the lake."),
    ]

    private static func sample(
        _ id: Int, _ city: String, _ country: String, nights: Int, favorite: Bool = false, image: String,
        price: String, start: String, notes: String
    ) -> Trip {
        Trip(
            id: id, city: city, country: country, nights: nights, isFavorite: favorite, imageName: image,
            price: (try? Price(literal: price.utf8)) ?? .zero, start: TripDate.parse(start) ?? Date(timeIntervalSince1970: 0),
            notes: notes)
    }
}
