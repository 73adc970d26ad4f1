import Foundation
import TripsFormats

extension Trip {
    /// The trip as a JSON object with exactly the ten fields.
    ///
    ///     {"id":2,"city":"Vancouver","country":"Canada","nights":3,"isFavorite":false,
    ///      "imageName":"vancouver","price":1299.99,"start":"2027-03-05T00:00:00Z","notes":"",
    ///      "photo":{"url":"/photos/9f86d0….jpg","type":"image/jpeg","width":1200,"height":800,"bytes":183442}}
    public func writeJSON(to writer: inout JSONWriter) {
        writer.appendRaw(#"{"id":"#)
        writer.appendInteger(id)
        writer.appendRaw(",")
        writer.appendTripFields(
            city: city, country: country, nights: nights, isFavorite: isFavorite, imageName: imageName, price: exactPrice, start: start,
            notes: notes)
        writer.appendRaw(#","photo":"#)
        if let photo { photo.writeJSON(to: &writer) } else { writer.appendRaw("null") }
        writer.appendRaw("}")
    }

    /// The trip as a JSON value, the form a merge patch is applied to.
    package var jsonValue: JSONValue {
        .object([
            Field.id.rawValue: .number(String(id)),
            Field.city.rawValue: .string(city),
            Field.country.rawValue: .string(country),
            Field.nights.rawValue: .number(String(nights)),
            Field.isFavorite.rawValue: .bool(isFavorite),
            Field.imageName.rawValue: .string(imageName),
            Field.price.rawValue: .number(exactPrice.digits),
            Field.start.rawValue: .string(TripDate.rfc3339(start)),
            Field.notes.rawValue: .string(notes),
            Field.photo.rawValue: photo?.jsonValue ?? .null,
        ])
    }
}

extension TripDraft {
    /// Reads and validates a draft from a JSON object, reporting every rule it breaks.
    ///
    /// `isFavorite`, `imageName` and `notes` may be left out (or null). `id` and `photo` are
    /// the server's, and follow one rule, so that a client may send back the JSON it read:
    /// left out or null, they are ignored; otherwise they are refused when creating
    /// (`replacing` is nil: the list issues ids, and a photo is set with its own request) and
    /// must equal the replaced trip's when a whole trip is replaced (its photo stays as it is).
    /// Any other member is an error.
    public init(json: JSONValue, replacing trip: Trip? = nil) throws(TripsError) {
        var members = try JSONMembers(json, describing: "a trip")
        var errors: [TripsError] = []
        var unread = Set<Trip.Field>()
        /// Reads one field; a failure is recorded and the field left out of the later checks.
        func read<T: JSONReadable>(_ field: Trip.Field, required: Bool) -> T? {
            do throws(TripsError) {
                return required ? try members.required(field) : try members.optional(field)
            } catch {
                errors.append(error)
                unread.insert(field)
                return nil
            }
        }
        if let sentID: Int = read(.id, required: false) {
            if trip == nil { errors.append(.invalidField(.id, "is issued by the server; leave it out")) }
            if let trip, sentID != trip.id { errors.append(.invalidField(.id, "must match the trip's id \(trip.id)")) }
        }
        let city: String? = read(.city, required: true)
        let country: String? = read(.country, required: true)
        let nights: Int? = read(.nights, required: true)
        let isFavorite: Bool? = read(.isFavorite, required: false)
        let imageName: String? = read(.imageName, required: false)
        let price: Price? = read(.price, required: true)
        let start: Date? = read(.start, required: true)
        let notes: String? = read(.notes, required: false)
        if let sentPhoto: TripPhoto = read(.photo, required: false) {
            if trip == nil { errors.append(.invalidField(.photo, TripPhoto.setOnlyByItsRequest)) }
            if let trip, sentPhoto != trip.photo { errors.append(.invalidField(.photo, TripPhoto.readOnlyRule)) }
        }
        errors += members.unknownNames.map(TripsError.unknownMember)
        // Fields that could not be read stand in with placeholders their checks skip.
        self.init(
            city: city ?? "", country: country ?? "", nights: nights ?? 0, isFavorite: isFavorite ?? false,
            imageName: imageName ?? "", price: price ?? .zero, start: start ?? Date(timeIntervalSince1970: 0), notes: notes ?? "")
        errors += violations(skipping: unread)
        // In the order a trip's fields are written, unknown members last.
        let rank = { (error: TripsError) -> Int in
            guard case .invalidMember(let name, _) = error, let field = Trip.Field(rawValue: name) else { return Int.max }
            return Trip.Field.allCases.firstIndex(of: field)!
        }
        let ordered = errors.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
        if let error = TripsError.combining(ordered.map(\.element)) { throw error }
    }
}

extension TripDraft {
    /// The valid draft a flat object's members (`JSONValue.flatObjectMembers(parsing:)`) spell
    /// as a client creating a trip most often writes it: each field at most once, of its type,
    /// `nights` a plain integer (`3`, not `3.0`), no `id` or `photo`, nothing else. nil for
    /// anything else, an invalid draft included: `init(json:)` reads it, or says every way it
    /// is wrong. What it answers is what `init(json:)` answers for the same members.
    package init?(flatMembers members: [(name: String, value: JSONValue)]) {
        var (city, country, imageName, notes): (String?, String?, String?, String?) = (nil, nil, nil, nil)
        var (nights, isFavorite, price, start): (Int?, Bool?, Price?, Date?) = (nil, nil, nil, nil)
        // Names compared as literals: `Trip.Field(rawValue:)` and a `Set` of fields search or
        // hash strings, ten times the cost of the whole reading. The members' names are
        // distinct (`flatObjectMembers`), so each field is read at most once.
        for (name, value) in members {
            switch (name, value) {
            case ("city", .string(let text)): city = text
            case ("country", .string(let text)): country = text
            case ("nights", .number(let literal)): nights = Int(literal)
            case ("isFavorite", .bool(let flag)): isFavorite = flag
            case ("imageName", .string(let text)): imageName = text
            case ("price", .number): price = try? Price(json: value)
            case ("start", .string(let text)): start = TripDate.parse(text)
            case ("notes", .string(let text)): notes = text
            case ("isFavorite", .null), ("imageName", .null), ("notes", .null): break
            default: return nil
            }
        }
        guard let city, let country, let nights, let price, let start else { return nil }
        self.init(
            city: city, country: country, nights: nights, isFavorite: isFavorite ?? false, imageName: imageName ?? "", price: price,
            start: start, notes: notes ?? "")
        guard violations().isEmpty else { return nil }
    }
}

extension Trip {
    /// Reads a trip as the service writes it (`writeJSON`): the ten members, with `id` and
    /// `photo` (or null), every number exactly as written. What a client reads back.
    public init(json: JSONValue) throws(TripsError) {
        guard case .object(var members) = json else { throw .invalidBody("a trip must be a JSON object, not \(json.kindName)") }
        guard let idValue = members.removeValue(forKey: Field.id.rawValue) else { throw .invalidField(.id, "is required") }
        let id = try JSONMembers.read(idValue, as: Int.self, member: Field.id.rawValue)
        var photo: TripPhoto?
        if let photoValue = members.removeValue(forKey: Field.photo.rawValue), photoValue != .null {
            photo = try JSONMembers.read(photoValue, as: TripPhoto.self, member: Field.photo.rawValue)
        }
        self.init(id: id, draft: try TripDraft(json: .object(members)), photo: photo)
    }
}

extension TripDraft {
    /// The draft as the JSON object `POST /trips` reads: every field but `id` and `photo`.
    ///
    ///     {"city":"Lisbon","country":"Portugal","nights":4,"isFavorite":false,"imageName":"",
    ///      "price":899.9,"start":"2027-05-01T00:00:00Z","notes":""}
    public func writeJSON(to writer: inout JSONWriter) {
        writer.appendRaw("{")
        writer.appendTripFields(
            city: city, country: country, nights: nights, isFavorite: isFavorite, imageName: imageName, price: exactPrice, start: start,
            notes: notes)
        writer.appendRaw("}")
    }
}

extension JSONWriter {
    /// The members a trip and a draft share, `"city"` to `"notes"`, in that order, without braces.
    fileprivate mutating func appendTripFields(
        city: String, country: String, nights: Int, isFavorite: Bool, imageName: String, price: Price, start: Date, notes: String
    ) {
        appendRaw(#""city":"#)
        appendString(city)
        appendRaw(#","country":"#)
        appendString(country)
        appendRaw(#","nights":"#)
        appendInteger(nights)
        appendRaw(#","isFavorite":"#)
        appendBool(isFavorite)
        appendRaw(#","imageName":"#)
        appendString(imageName)
        appendRaw(#","price":"#)
        appendRaw(price.digits)
        appendRaw(#","start":"#)
        appendTimestamp(start)
        appendRaw(#","notes":"#)
        appendString(notes)
    }
}
