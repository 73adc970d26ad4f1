import TripsDomain
import TripsFormats

extension JSONWriter {
    /// A photo as storage keeps it (not as clients see it: no URL, which is presentation):
    ///
    ///     {"digest":"9f86d0…","format":"jpeg","width":1200,"height":800,"bytes":183442}
    package mutating func appendStoredPhoto(_ photo: TripPhoto) {
        appendRaw(#"{"digest":"#)
        appendString(photo.digest)
        appendRaw(#","format":"#)
        appendString(photo.format.rawValue)
        appendRaw(#","width":"#)
        appendInteger(photo.width)
        appendRaw(#","height":"#)
        appendInteger(photo.height)
        appendRaw(#","bytes":"#)
        appendInteger(photo.byteCount)
        appendRaw("}")
    }
}

extension StoredObject {
    /// Reads a member holding what `appendStoredPhoto` writes, or null (no photo).
    package mutating func photo(_ name: String) throws(StoredJSONError) -> TripPhoto? {
        let value = try value(name)
        guard value != .null else { return nil }
        var object = try StoredObject(value, describing: name)
        let digest = try object.string("digest")
        let formatName = try object.string("format")
        let (width, height, byteCount): (Int, Int, Int) = (
            try object.integer("width"), try object.integer("height"), try object.integer("bytes")
        )
        try object.finish()
        guard let format = ImageFormat(rawValue: formatName) else {
            throw StoredJSONError(reason: "\(name) has the unknown format \(formatName)")
        }
        guard let photo = TripPhoto(digest: digest, format: format, width: width, height: height, byteCount: byteCount) else {
            throw StoredJSONError(reason: "\(name) is not a well-formed photo")
        }
        return photo
    }
}
