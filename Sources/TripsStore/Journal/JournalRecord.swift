import TripsDomain
import TripsFormats

/// One journal entry: a change and the list's revision right after it, so replay can
/// check that it rebuilds the same list.
///
///     {"revision":8,"op":"add","drafts":[{"city":"Lisbon",…,"price":1299.99,"start":"2027-05-01T00:00:00Z","notes":""}]}
///     {"revision":8,"op":"add","drafts":[{…},{…}],"before":3}    // older journals: "draft":{…}
///     {"revision":9,"op":"delete","ids":[1,6]}
///     {"revision":10,"op":"replace","id":4,"draft":{…}}
///     {"revision":11,"op":"setFavorite","id":2,"isFavorite":true}
///     {"revision":12,"op":"move","sources":[7,3],"destination":{"before":1}}   // or "destination":"end"
///     {"revision":13,"op":"makeFavorites","ids":[3,7]}
///     {"revision":14,"op":"sort","by":"price"}
///     {"revision":15,"op":"setPhoto","id":2,"photo":{"digest":"9f86d0…","format":"jpeg","width":1200,"height":800,"bytes":183442}}
///     {"revision":16,"op":"setPhoto","id":2,"photo":null}
package struct JournalRecord: Sendable, Equatable {
    package var revision: UInt64
    package var change: TripChange
    /// The idempotency key the change was made with, and its answer, kept with it.
    package var idempotency: IdempotencyKeyUse?

    /// The record as its JSON payload.
    package var payload: [UInt8] {
        // A create's record is ~300 bytes: room for it at once, not grown (copied) on the way.
        var writer = JSONWriter(reservingCapacity: 512)
        writer.appendRaw(#"{"revision":"#)
        writer.appendInteger(revision)
        writer.appendRaw(#","op":"#)
        switch change {
        case .add(let drafts, let before):
            writer.appendRaw(#""add","drafts":["#)
            for (index, draft) in drafts.enumerated() {
                if index > 0 { writer.appendRaw(",") }
                writer.appendDraft(draft)
            }
            writer.appendRaw("]")
            if let before {
                writer.appendRaw(#","before":"#)
                writer.appendInteger(before)
            }
        case .delete(let ids):
            writer.appendRaw(#""delete","ids":"#)
            writer.appendIntegers(ids)
        case .replace(let id, let draft):
            writer.appendRaw(#""replace","id":"#)
            writer.appendInteger(id)
            writer.appendRaw(#","draft":"#)
            writer.appendDraft(draft)
        case .setFavorite(let id, let isFavorite):
            writer.appendRaw(#""setFavorite","id":"#)
            writer.appendInteger(id)
            writer.appendRaw(#","isFavorite":"#)
            writer.appendBool(isFavorite)
        case .move(let difference):
            writer.appendRaw(#""move","sources":"#)
            writer.appendIntegers(difference.sources)
            writer.appendRaw(#","destination":"#)
            writer.appendDestination(difference.destination)
        case .makeFavorites(let ids):
            writer.appendRaw(#""makeFavorites","ids":"#)
            writer.appendIntegers(ids)
        case .sort(let key):
            writer.appendRaw(#""sort","by":"#)
            writer.appendString(key.rawValue)
        case .setPhoto(let id, let photo):
            writer.appendRaw(#""setPhoto","id":"#)
            writer.appendInteger(id)
            writer.appendRaw(#","photo":"#)
            if let photo { writer.appendStoredPhoto(photo) } else { writer.appendRaw("null") }
        }
        if let idempotency {
            writer.appendRaw(#","idempotency":"#)
            writer.appendKeyUse(idempotency)
        }
        writer.appendRaw("}")
        return writer.bytes
    }

    package init(revision: UInt64, change: TripChange, idempotency: IdempotencyKeyUse? = nil) {
        self.revision = revision
        self.change = change
        self.idempotency = idempotency
    }

    /// Reads a payload `payload` wrote from bytes lent for the call (a database row's): a
    /// create's in place, any other from a copy.
    package init(payload: UnsafeRawBufferPointer) throws(StoredJSONError) {
        if let record = StoredLayoutReader.addRecord(payload) {
            self = record
            return
        }
        try self.init(payload: Array(payload))
    }

    /// Reads a payload `payload` wrote.
    package init(payload: [UInt8]) throws(StoredJSONError) {
        // Creates, by far the most common record, in the layout written here: read directly.
        if let record = payload.withUnsafeBytes(StoredLayoutReader.addRecord) {
            self = record
            return
        }
        var object = try StoredObject(parsing: payload, describing: "the record")
        revision = try object.integer("revision")
        let operation = try object.string("op")
        switch operation {
        case "add" where object.has("draft"):
            change = .add(try object.draft("draft"))  // one trip, as journals wrote it before drops of several
        case "add":
            change = .add(try object.drafts("drafts"), before: object.has("before") ? try object.integer("before") : nil)
        case "delete":
            change = .delete(try object.integers("ids"))
        case "replace":
            change = .replace(try object.integer("id"), try object.draft("draft"))
        case "setFavorite":
            change = .setFavorite(try object.integer("id"), try object.bool("isFavorite"))
        case "move":
            let sources = try object.integers("sources")
            let destination: ReorderDifference.Destination
            switch try object.value("destination") {
            case .string("end"):
                destination = .end
            case let value:
                var target = try StoredObject(value, describing: "destination")
                destination = .before(try target.integer("before"))
                try target.finish()
            }
            change = .move(ReorderDifference(sources: sources, destination: destination))
        case "makeFavorites":
            change = .makeFavorites(try object.integers("ids"))
        case "sort":
            let name = try object.string("by")
            guard let key = TripSortKey(rawValue: name) else { throw StoredJSONError(reason: "unknown sort key \(name)") }
            change = .sort(key)
        case "setPhoto":
            change = .setPhoto(try object.integer("id"), try object.photo("photo"))
        default:
            throw StoredJSONError(reason: "unknown op \(operation)")
        }
        idempotency = object.has("idempotency") ? try StoredObject.keyUse(try object.value("idempotency")) : nil
        try object.finish()
    }
}
