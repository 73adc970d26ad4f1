import Foundation
import TripsDomain
import TripsFormats
import TripsPlatform
import TripsPostgres

/// Reading rows: the text PostgreSQL answers with, checked and turned into values; a row that
/// does not read is `.damaged`.
extension PostgresTripTables {
    static func position(_ row: [String?]) throws(PostgresStoreError) -> (id: Trip.ID, key: Int64) {
        guard row.count == 2, let id = row[0].flatMap({ Int($0) }), let key = row[1].flatMap({ Int64($0) }) else {
            throw .damaged("a position row reads \(Self.describe(row))")
        }
        return (id, key)
    }

    /// A `trips` row, read in place (`tripsInOrder`): id, version, city, country, nights,
    /// is_favorite, image_name, price, start, notes, photo_digest (one of `photos`, or NULL)
    /// and position. A long text equal to one in `strings` shares its storage.
    static func trip(
        _ row: PostgresRowValues, photos: [String: TripPhoto], strings: inout RecentStrings
    ) throws(PostgresStoreError) -> (Trip, version: UInt64, key: Int64) {
        guard row.count == 12, let id = row.integer(0).flatMap({ Int(exactly: $0) }),
            let version = row.integer(1).flatMap({ UInt64(exactly: $0) }),
            let city = row[2].flatMap({ strings.string($0) }), let country = row[3].flatMap({ strings.string($0) }),
            let nights = row.integer(4).flatMap({ Int(exactly: $0) }), let isFavorite = row.boolean(5),
            let imageName = row[6].flatMap({ strings.string($0) }), let price = row[7].flatMap(Self.price),
            let start = row.double(8).map(Date.init(timeIntervalSinceReferenceDate:)), TripDate.isInRange(start),
            let notes = row[9].flatMap({ strings.string($0) }), let key = row.integer(11)
        else { throw .damaged("a trips row reads \(Self.describe(row))") }
        var photo: TripPhoto?
        if let digest = row[10] {
            let name = String(decoding: digest, as: UTF8.self)
            guard let stored = photos[name] else {
                throw .damaged("trip \(id) shows photo \(Self.shortened(digest)), which trip_photos lacks")
            }
            photo = stored
        }
        let trip = Trip(
            id: id, city: city, country: country, nights: nights, isFavorite: isFavorite, imageName: imageName, price: price,
            start: start, notes: notes, photo: photo)
        return (trip, version, key)
    }

    /// A `numeric` price as PostgreSQL writes it; the digits a price is stored in are read
    /// without the general reader.
    private static func price(_ text: UnsafeRawBufferPointer) -> Price? {
        Price(storedDigits: text) ?? (try? Price(literal: text))
    }

    /// A row's values as text, for a message about a row that does not read.
    static func describe(_ row: PostgresRowValues) -> String {
        (0..<row.count).map { row[$0].map(shortened) ?? "NULL" }.joined(separator: ", ")
    }

    /// A row read as strings, its values shortened, for a message about a row that does not read.
    static func describe(_ row: [String?]) -> String {
        row.map { $0.map(shortened) ?? "NULL" }.joined(separator: ", ")
    }

    private static func shortened(_ value: String) -> String {
        var value = value
        return value.withUTF8 { shortened(UnsafeRawBufferPointer($0)) }
    }

    /// A value from the database as text for a message, its first 64 bytes at most: a row that
    /// does not read may hold anything, up to the 64 MiB a message can carry, and the message
    /// goes to the log.
    static func shortened(_ value: UnsafeRawBufferPointer) -> String {
        let limit = 64
        let text = String(decoding: value.prefix(limit), as: UTF8.self)
        return value.count > limit ? text + "… (\(value.count) bytes)" : text
    }

    /// A `trip_photos` row without its bytes (`photosWithoutBytes`): digest, type, width,
    /// height and byte count.
    static func photo(_ row: [String?]) throws(PostgresStoreError) -> TripPhoto {
        guard row.count == 5, let digest = row[0], let type = row[1],
            let format = ImageFormat.allCases.first(where: { $0.mediaType.description == type }),
            let width = row[2].flatMap({ Int($0) }), let height = row[3].flatMap({ Int($0) }),
            let byteCount = row[4].flatMap({ Int($0) }),
            let photo = TripPhoto(digest: digest, format: format, width: width, height: height, byteCount: byteCount)
        else { throw .damaged("a trip_photos row reads \(describe(row))") }
        return photo
    }

    /// A `trip_photos` row's bytes, as `encode(bytes, 'hex')` answers them, for `photo`.
    package static func photoBytes(_ row: [String?], of photo: TripPhoto) throws(PostgresStoreError) -> PhotoBytes {
        guard row.count == 1, let text = row[0], let bytes = Hexadecimal.decode(text) else {
            throw .damaged("the bytes of photo \(photo.digest) do not read")
        }
        guard bytes.count == photo.byteCount else {
            throw .damaged("photo \(photo.digest) holds \(bytes.count) bytes, not \(photo.byteCount)")
        }
        return PhotoBytes(photo: photo, bytes: bytes)
    }

    /// A `trip_changes` row's revision, event and data.
    package static func event(_ row: [String?]) throws(PostgresStoreError) -> ChangeEvent {
        guard row.count == 3, let revision = row[0].flatMap({ UInt64($0) }) else {
            throw .damaged("a trip_changes row reads \(describe(row))")
        }
        return try event(revision: revision, name: row[1], data: row[2])
    }

    /// A stored event as the feed will send it, checked first: the database is not trusted to
    /// keep the feed's framing, so a name it does not know, data that is not one line (a line
    /// break would start a field of its own in `text/event-stream`), or data that does not
    /// open with the row's own revision (a client resumes from the `id:` line, the row's) is
    /// damage.
    static func event(revision: UInt64, name: String?, data: String?) throws(PostgresStoreError) -> ChangeEvent {
        guard let name, ChangeEvent.isChangeName(name) else {
            throw .damaged("change \(revision)'s event is named \(name.map(shortened) ?? "NULL")")
        }
        return try event(revision: revision, name: name, data: Array((data ?? "").utf8))
    }

    /// `event(revision:name:data:)` from a row's bytes, read in place (`replay`): the name
    /// taken as the one string kept for it, the data copied once, and checked to be UTF-8, as
    /// a `String` of them would have been.
    static func event(
        revision: UInt64, name: UnsafeRawBufferPointer?, data: UnsafeRawBufferPointer?
    ) throws(PostgresStoreError) -> ChangeEvent {
        guard let name, let known = ChangeEvent.changeName(utf8: name) else {
            throw .damaged("change \(revision)'s event is named \(name.map(shortened) ?? "NULL")")
        }
        guard data.map({ UTF8Text.isUTF8($0) }) ?? true else { throw .damaged("change \(revision)'s event data is not UTF-8") }
        return try event(revision: revision, name: known, data: data.map { Array($0) } ?? [])
    }

    /// The checks `event(revision:name:data:)` makes of a known name's `bytes`.
    private static func event(revision: UInt64, name: String, data bytes: [UInt8]) throws(PostgresStoreError) -> ChangeEvent {
        let isOneLine = bytes.withUnsafeBytes { (raw) in
            guard let base = raw.baseAddress else { return true }
            return memchr(base, 0x0A, raw.count) == nil && memchr(base, 0x0D, raw.count) == nil
        }
        guard Self.opens(bytes, with: revision), bytes.last == UInt8(ascii: "}"), isOneLine else {
            throw .damaged("change \(revision)'s event data is not one JSON object on one line, opening with its revision")
        }
        return ChangeEvent(revision: revision, name: name, data: bytes)
    }

    /// Whether an event's data opens with `{"revision":` and `revision`'s digits as the writer
    /// spells them (`JSONWriter.appendInteger`), then `,` or `}`. Compared in place: spelling
    /// the opening out as a string and comparing it through the string's view cost a fifth of
    /// replaying the change.
    static func opens(_ bytes: [UInt8], with revision: UInt64) -> Bool {
        guard let number = Int(exactly: revision) else {
            // Past `Int` the writer goes through `String` too (no bigint revision gets there).
            return Array(String(revision).utf8).withUnsafeBytes { opens(bytes, withDigits: $0) }
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONWriter.maxDigits(width: 1)) { room in
            let count = JSONWriter.writeDigits(number, width: 1, to: room.baseAddress!)
            return opens(bytes, withDigits: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: room[..<count])))
        }
    }

    /// Compared with `memcmp`: the collections' generic `elementsEqual` cost a sixtieth of
    /// replaying a change.
    private static func opens(_ bytes: [UInt8], withDigits digits: UnsafeRawBufferPointer) -> Bool {
        let prefixCount = eventPrefix.count
        let end = prefixCount + digits.count
        guard !digits.isEmpty, bytes.count > end, bytes[end] == UInt8(ascii: ",") || bytes[end] == UInt8(ascii: "}") else {
            return false
        }
        return bytes.withUnsafeBytes { data in
            eventPrefix.withUnsafeBytes { memcmp(data.baseAddress!, $0.baseAddress!, prefixCount) == 0 }
                && memcmp(data.baseAddress! + prefixCount, digits.baseAddress!, digits.count) == 0
        }
    }

    private static let eventPrefix = Array(#"{"revision":"#.utf8)

    package static func keyUse(_ text: String?) throws(PostgresStoreError) -> IdempotencyKeyUse {
        do throws(StoredJSONError) {
            guard let text else { throw StoredJSONError(reason: "it is NULL") }
            var object = try StoredObject(parsing: Array(text.utf8), describing: "an idempotency key")
            return try StoredObject.keyUse(object.takeRest())
        } catch {
            throw .damaged("an idempotency key: \(error)")
        }
    }

    /// Applies a `trip_changes` row (revision, record, position keys, event, data) read in
    /// place as the journal's replay does; answers it as a step, for the other copy of the
    /// state (`State.redo`). No value becomes a `String`: the record is read from the row's
    /// bytes and the event's data copied once (strings of them, and copies of those, cost a
    /// tenth of replaying another instance's create).
    package static func replay(_ row: PostgresRowValues, onto state: inout State) throws(PostgresStoreError) -> Step {
        guard row.count == 5, let revision = row.integer(0).flatMap({ UInt64(exactly: $0) }), let payload = row[1] else {
            throw .damaged("a trip_changes row reads \(describe(row))")
        }
        var keys: TripPositionKeys.Assignment?
        if let positions = row[2] {
            guard let assignment = TripPositionKeys.Assignment(bytes: positions) else {
                throw .damaged("change \(revision)'s position keys read \(shortened(positions))")
            }
            keys = assignment
        }
        let record: JournalRecord
        do {
            record = try JournalRecord(payload: payload)
        } catch {
            throw .damaged("change \(revision): \(error)")
        }
        let event = try event(revision: revision, name: row[3], data: row[4])
        let outcome = try state.redo(record, event: event, keys: keys, madeAs: nil)
        return .change(record, event, keys: keys, outcome: outcome)
    }
}
