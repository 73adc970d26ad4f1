import Synchronization
import TripsDomain
import TripsFormats

/// Each trip's JSON object per version, for the lists and pages of trips that hold it: a page
/// of 50 copies 50 objects instead of writing them (writing one costs about 8,000
/// instructions, copying it a few hundred), and the whole list made again after a change
/// writes the changed trip alone.
///
/// A trip's object is what `Trip.writeJSON` writes at the version its list says; any change
/// to a trip gives it a new version, so an object is never served for a trip it no longer
/// shows. At most `capacity` trips are kept (about 300 bytes each); beyond, objects are
/// written each time.
final class TripJSONCache: Sendable {
    private let objects = Mutex<[Trip.ID: (version: UInt64, json: [UInt8])]>([:])
    let capacity: Int

    static let defaultCapacity = 20_000

    init(capacity: Int = defaultCapacity) {
        self.capacity = capacity
    }

    /// The JSON array of `trips`, byte for byte as `[Trip].writeJSON` writes it, with each
    /// trip at the version `list` (the list `trips` were read from) has for it.
    func array(of trips: [Trip], in list: TripList) -> [UInt8] {
        let versions = trips.map { list.version(of: $0.id) ?? 0 }
        var found = objects.withLock { kept in
            trips.indices.map { index in kept[trips[index].id].flatMap { $0.version == versions[index] ? $0.json : nil } }
        }
        var made: [(id: Trip.ID, version: UInt64, json: [UInt8])] = []
        for index in found.indices where found[index] == nil {
            var writer = JSONWriter(reservingCapacity: 320)
            trips[index].writeJSON(to: &writer)
            let json = writer.bytes  // a copy when shorter than the room: taken once
            found[index] = json
            made.append((trips[index].id, versions[index], json))
        }
        if !made.isEmpty {
            objects.withLock { kept in
                for object in made where kept[object.id] != nil || kept.count < capacity {
                    kept[object.id] = (object.version, object.json)
                }
            }
        }
        // `[Trip].writeJSON`'s framing, over bytes: through a `JSONWriter` and a closure per
        // object (one definition for both) a page of 50 cost 17% more (the writer's room is
        // zeroed first, and each trip copied into the closure).
        var json: [UInt8] = []
        json.reserveCapacity(found.reduce(2 + found.count) { $0 + ($1?.count ?? 0) })
        json.append(UInt8(ascii: "["))
        for (index, object) in found.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: object ?? [])
        }
        json.append(UInt8(ascii: "]"))
        return json
    }

    /// How many trips' objects are kept.
    var count: Int { objects.withLock { $0.count } }

    /// Drops the objects of trips that no longer exist.
    func forget(_ ids: [Trip.ID]) {
        objects.withLock { kept in
            for id in ids { kept[id] = nil }
        }
    }
}
