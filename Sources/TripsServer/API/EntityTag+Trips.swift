import TripsDomain
import TripsFormats
import TripsHTTP

extension EntityTag {
    /// A trip's representation: differs per media type and language (English has no
    /// suffix, as before there were languages), changes whenever the trip does.
    static func trip(_ id: Trip.ID, version: UInt64, _ mediaType: MediaType, _ language: Language? = nil) -> EntityTag {
        written(mediaType, language) { tag in
            tag.write("trip-")
            tag.write(id)
            tag.write("-v")
            tag.write(version)
        }
    }

    /// A trip's page: it shows the trip and "Next: <city>", which another trip's change can
    /// alter, so it changes whenever the list does (a 304 never keeps a stale "Next"). The
    /// script guards a change of the trip with the trip's own tag, which the card carries.
    static func tripPage(_ id: Trip.ID, revision: UInt64, _ language: Language? = nil) -> EntityTag {
        written(.html, language) { tag in
            tag.write("trip-")
            tag.write(id)
            tag.write("-r")
            tag.write(revision)
        }
    }

    /// A list's (or a view's) representation: changes whenever the list, its order or any trip does.
    static func list(revision: UInt64, _ mediaType: MediaType, _ language: Language? = nil) -> EntityTag {
        written(mediaType, language) { tag in
            tag.write("list-r")
            tag.write(revision)
        }
    }

    /// A tag whose opaque part `head` writes, then `-` and the media type's subtype, then `-`
    /// and the language's tag for a language other than English: into one string at once.
    /// Interpolated, a create's answer spent some 1,800 instructions making its tag.
    private static func written(_ mediaType: MediaType, _ language: Language?, _ head: (inout OpaqueWriter) -> Void) -> EntityTag {
        let language = language == .english ? nil : language
        // A word and two numbers of at most 20 digits each, the subtype, the language's tag.
        let capacity = 64 + mediaType.subtype.utf8.count + (language?.tag.utf8.count ?? 0)
        return EntityTag(
            String(unsafeUninitializedCapacity: capacity) { room in
                var writer = OpaqueWriter(room: room)
                head(&writer)
                writer.write("-")
                writer.write(mediaType.subtype)
                if let language {
                    writer.write("-")
                    writer.write(language.tag)
                }
                return writer.count
            })
    }

    /// Writes a tag's opaque part into the room `written` made for it.
    fileprivate struct OpaqueWriter {
        let room: UnsafeMutableBufferPointer<UInt8>
        private(set) var count = 0

        init(room: UnsafeMutableBufferPointer<UInt8>) { self.room = room }

        mutating func write(_ text: String) {
            count = room[count...].initialize(fromContentsOf: text.utf8)
        }

        mutating func write(_ number: some FixedWidthInteger) {
            guard let value = Int(exactly: number) else { return write(String(number)) }
            precondition(room.count - count >= JSONWriter.maxDigits(width: 1), "no room for a number in a tag")
            count += JSONWriter.writeDigits(value, width: 1, to: room.baseAddress! + count)
        }
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
