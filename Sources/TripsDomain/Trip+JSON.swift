import Foundation

extension Trip {
    /// The trip as a JSON object with exactly the nine fields.
    ///
    ///     {"id":2,"city":"Vancouver","country":"Canada","nights":3,"isFavorite":false,
    ///      "imageName":"vancouver","price":1299.99,"start":"2027-03-05T00:00:00Z","notes":""}
    public func writeJSON(to writer: inout JSONWriter) {
        writer.appendRaw(#"{"id":"#)
        writer.appendInteger(id)
        writer.appendRaw(#","city":"#)
        writer.appendString(city)
        writer.appendRaw(#","country":"#)
        writer.appendString(country)
        writer.appendRaw(#","nights":"#)
        writer.appendInteger(nights)
        writer.appendRaw(#","isFavorite":"#)
        writer.appendBool(isFavorite)
        writer.appendRaw(#","imageName":"#)
        writer.appendString(imageName)
        writer.appendRaw(#","price":"#)
        writer.appendRaw(price.description)
        writer.appendRaw(#","start":"#)
        writer.appendString(TripDate.rfc3339(start))
        writer.appendRaw(#","notes":"#)
        writer.appendString(notes)
        writer.appendRaw("}")
    }

    /// The trip as a JSON value, the form a merge patch is applied to.
    var jsonValue: JSONValue {
        .object([
            Field.id.rawValue: .number(String(id)),
            Field.city.rawValue: .string(city),
            Field.country.rawValue: .string(country),
            Field.nights.rawValue: .number(String(nights)),
            Field.isFavorite.rawValue: .bool(isFavorite),
            Field.imageName.rawValue: .string(imageName),
            Field.price.rawValue: .number(price.description),
            Field.start.rawValue: .string(TripDate.rfc3339(start)),
            Field.notes.rawValue: .string(notes),
        ])
    }
}

extension TripDraft {
    /// Reads and validates a draft from a JSON object.
    ///
    /// `isFavorite`, `imageName` and `notes` may be left out (or null). An `id` member is
    /// refused when creating (`replacing` is nil: the list issues ids) and must equal
    /// `replacing` when a whole trip is replaced. Any other member is an error.
    public init(json: JSONValue, replacing id: Int? = nil) throws(TripsError) {
        var members = try JSONMembers(json, describing: "a trip")
        if let sentID: Int = try members.optional(.id) {
            guard let id else { throw .invalidField(.id, "is issued by the server; leave it out") }
            guard sentID == id else { throw .invalidField(.id, "must match the trip's id \(id)") }
        }
        self.init(
            city: try members.required(.city),
            country: try members.required(.country),
            nights: try members.required(.nights),
            isFavorite: try members.optional(.isFavorite) ?? false,
            imageName: try members.optional(.imageName) ?? "",
            price: try members.required(.price),
            start: try members.required(.start),
            notes: try members.optional(.notes) ?? ""
        )
        try members.rejectUnknown()
        try validate()
    }
}
