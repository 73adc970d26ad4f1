import Foundation
import TripsFormats

/// A view of the list: which trips, in which order. Views never change the stored order.
public struct TripQuery: Sendable, Hashable {
    /// Which trips a view shows (`?filter=`), as the lesson's filter chips do.
    public enum Filter: String, Sendable, CaseIterable {
        case all, favorites
    }

    public var filter: Filter
    /// Only trips in this country (case- and diacritic-insensitive).
    public var country: String?
    /// Only trips whose city, country or notes contain this (case- and diacritic-insensitive).
    public var search: String?
    /// A sorted view; nil keeps the stored order.
    public var order: TripOrder?

    public init(filter: Filter = .all, country: String? = nil, search: String? = nil, order: TripOrder? = nil) {
        self.filter = filter
        self.country = country
        self.search = search
        self.order = order
    }

    /// Whether the query shows every trip in stored order.
    public var isEverything: Bool {
        self == TripQuery()
    }
}

/// What a list can be sorted by, in the store (the app's Sort menu) or in a view.
public enum TripSortKey: String, Sendable, CaseIterable {
    case start, price

    /// Whether `a` comes before `b`, ascending.
    package func areInIncreasingOrder(_ a: Trip, _ b: Trip) -> Bool {
        switch self {
        case .start: a.start < b.start
        case .price: a.price < b.price
        }
    }

    /// Whether `a` and `b` tie on this key.
    package func areEqual(_ a: Trip, _ b: Trip) -> Bool {
        switch self {
        case .start: a.start == b.start
        case .price: a.price == b.price
        }
    }
}

/// A sort key and a direction, written `start`, `-start`, `price` or `-price`.
public struct TripOrder: Sendable, Hashable {
    public var key: TripSortKey
    public var isDescending: Bool

    public init(key: TripSortKey, isDescending: Bool = false) {
        self.key = key
        self.isDescending = isDescending
    }

    /// Reads `start`, `-start`, `price` or `-price`.
    public init?(_ text: String) {
        let isDescending = text.hasPrefix("-")
        guard let key = TripSortKey(rawValue: isDescending ? String(text.dropFirst()) : text) else { return nil }
        self.init(key: key, isDescending: isDescending)
    }
}

extension String {
    /// The form searches compare: `Zürich` and `zurich` fold to the same text.
    ///
    /// ASCII text (most text) folds to its lower case, as Foundation folds it, without
    /// asking Foundation, whose folding costs a microsecond or more per string.
    public var searchFolded: String {
        if isAllASCII { return lowercased() }
        return folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Whether every character is ASCII, checked eight bytes at a time (start-up asks it of
    /// three words of each of a million trips).
    package var isAllASCII: Bool {
        var text = self
        return text.withUTF8 { UTF8Text.isASCII(UnsafeRawBufferPointer($0)) }
    }
}

extension Array where Element == Trip {
    /// The trips stably sorted: trips that tie keep their relative order, in either direction.
    package func stablySorted(by order: TripOrder) -> [Trip] {
        enumerated().sorted { lhs, rhs in
            if order.key.areEqual(lhs.element, rhs.element) { return lhs.offset < rhs.offset }
            let ascending = order.key.areInIncreasingOrder(lhs.element, rhs.element)
            return order.isDescending ? !ascending : ascending
        }.map(\.element)
    }

}

extension TripList.Trips {
    /// The trips that `query` shows, in the order it asks for. A trip's words are compared
    /// as the list keeps them folded (`TripSearchText`): only the query is folded here.
    public func matching(_ query: TripQuery) -> [Trip] {
        let country = query.country?.searchFolded
        let search = query.search.map(\.searchFolded).flatMap { $0.isEmpty ? nil : $0 }
        let shown = filteringWithText { trip, text in
            if query.filter == .favorites && !trip.isFavorite { return false }
            if let country, text.country != country { return false }
            if let search {
                return text.city.contains(search) || text.country.contains(search) || text.notes(of: trip, contain: search)
            }
            return true
        }
        guard let order = query.order else { return shown }
        return shown.stablySorted(by: order)
    }
}

extension TripSortKey: Importable {
    /// A sort request arrives as `{"by": "start"}` or `{"by": "price"}`.
    public static let importRepresentations: [ImportRepresentation<TripSortKey>] = [
        .json { (json) throws(TripsError) in
            var members = try JSONMembers(json, describing: "a sort request")
            let name: String = try members.required("by")
            guard let key = TripSortKey(rawValue: name) else {
                throw .invalidMember("by", "must be \"start\" or \"price\", not \"\(name)\"")
            }
            try members.rejectUnknown()
            return key
        }
    ]
}
