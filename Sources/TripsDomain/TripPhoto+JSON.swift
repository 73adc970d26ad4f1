import TripsFormats

extension TripPhoto {
    /// The five member names, in the order the trip's JSON writes them.
    enum Member {
        static let url = "url"
        static let type = "type"
        static let width = "width"
        static let height = "height"
        static let bytes = "bytes"
    }

    /// The photo as its trip's JSON shows it.
    ///
    ///     {"url":"/photos/9f86d0….jpg","type":"image/jpeg","width":1200,"height":800,"bytes":183442}
    public func writeJSON(to writer: inout JSONWriter) {
        writer.appendRaw(#"{"url":"#)
        writer.appendString(url)
        writer.appendRaw(#","type":"#)
        writer.appendString(format.mediaType.description)
        writer.appendRaw(#","width":"#)
        writer.appendInteger(width)
        writer.appendRaw(#","height":"#)
        writer.appendInteger(height)
        writer.appendRaw(#","bytes":"#)
        writer.appendInteger(byteCount)
        writer.appendRaw("}")
    }

    /// The photo as a JSON value, the form a merge patch is applied to.
    package var jsonValue: JSONValue {
        .object([
            Member.url: .string(url),
            Member.type: .string(format.mediaType.description),
            Member.width: .number(String(width)),
            Member.height: .number(String(height)),
            Member.bytes: .number(String(byteCount)),
        ])
    }
}

extension TripPhoto: JSONReadable {
    /// Reads what `writeJSON` writes (a client echoing a trip back): all five members, a URL
    /// whose extension is the type's, and nothing else.
    package init(json: JSONValue) throws(JSONTypeMismatch) {
        guard case .object(var members) = json else { throw Self.mismatch("a photo object or null", json) }
        func take<T: JSONReadable>(_ name: String) throws(JSONTypeMismatch) -> T {
            guard let value = members.removeValue(forKey: name) else { throw JSONTypeMismatch(reason: "must have \(name)") }
            do {
                return try T(json: value)
            } catch {
                throw JSONTypeMismatch(reason: "\(name) \(error.reason)")
            }
        }
        let url: String = try take(Member.url)
        let type: String = try take(Member.type)
        let width: Int = try take(Member.width)
        let height: Int = try take(Member.height)
        let byteCount: Int = try take(Member.bytes)
        if let unknown = members.keys.min() { throw JSONTypeMismatch(reason: "has no member \(unknown)") }
        guard let (digest, format) = Self.parseURL(url), format.mediaType.description == type,
            let photo = TripPhoto(digest: digest, format: format, width: width, height: height, byteCount: byteCount)
        else { throw JSONTypeMismatch(reason: "is not a photo this server stored") }
        self = photo
    }
}
