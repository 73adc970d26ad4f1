import TripsDomain
import TripsFormats
import TripsHTTP

extension EntityTag {
    /// A trip's representation: differs per media type and language (English has no
    /// suffix, as before there were languages), changes whenever the trip does.
    static func trip(_ id: Trip.ID, version: UInt64, _ mediaType: MediaType, _ language: Language? = nil) -> EntityTag {
        EntityTag("trip-\(id)-v\(version)-\(mediaType.subtype)\(suffix(language))")
    }

    /// A trip's page: it shows the trip and "Next: <city>", which another trip's change can
    /// alter, so it changes whenever the list does (a 304 never keeps a stale "Next"). The
    /// script guards a change of the trip with the trip's own tag, which the card carries.
    static func tripPage(_ id: Trip.ID, revision: UInt64, _ language: Language? = nil) -> EntityTag {
        EntityTag("trip-\(id)-r\(revision)-html\(suffix(language))")
    }

    /// A list's (or a view's) representation: changes whenever the list, its order or any trip does.
    static func list(revision: UInt64, _ mediaType: MediaType, _ language: Language? = nil) -> EntityTag {
        EntityTag("list-r\(revision)-\(mediaType.subtype)\(suffix(language))")
    }

    private static func suffix(_ language: Language?) -> String {
        guard let language, language != .english else { return "" }
        return "-" + language.tag
    }

    /// The tags of every current representation of a trip, its page's among them (the
    /// trip's own page tag, which its card carries, and the whole page's, current while the
    /// list is unchanged); empty when the list lacks it.
    static func allTrip(_ id: Trip.ID, in list: TripList) -> [EntityTag] {
        guard let version = list.version(of: id) else { return [] }
        return Trip.readVariants.flatMap { variant in
            let tag = trip(id, version: version, variant.mediaType, variant.language)
            return variant.mediaType == .html ? [tag, tripPage(id, revision: list.revision, variant.language)] : [tag]
        }
    }

    /// The tags of every current representation of the list.
    static func allList(_ list: TripList) -> [EntityTag] {
        [Trip].readVariants.map { self.list(revision: list.revision, $0.mediaType, $0.language) }
    }
}
