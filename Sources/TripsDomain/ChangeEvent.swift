import Glibc
import TripsFormats

/// One change to the list as the change feed tells it: its revision, an event name, and
/// one line of JSON a client holding the list can apply without refetching.
///
///     created    {"revision":8,"trips":[{…}],"before":2}        (before: null for the end)
///     updated    {"revision":9,"trip":{…}}                      (a replace, a patch, a photo)
///     deleted    {"revision":10,"ids":[1,6]}
///     reordered  {"revision":11,"sources":[3],"destination":"end"}
///     sorted     {"revision":12,"by":"price","order":[4,1,2,3]}
///     favorites  {"revision":13,"added":[2,3],"removed":[]}
///
/// A client plays its success feedback for a `favorites` event whose `added` is not empty,
/// exactly as the answer to a favorite drop says.
public struct ChangeEvent: Sendable, Hashable {
    public let revision: UInt64
    /// `created`, `updated`, `deleted`, `reordered`, `sorted` or `favorites`; `reset` when
    /// the changes before `revision` are not told (`reset(revision:)`).
    public let name: String
    /// The event's JSON object, on one line, with `revision` first.
    public let data: [UInt8]
    /// Where in `data` the JSON object of the one trip the event carries stands (`created` of
    /// one trip, `updated`), as `Trip.writeJSON` writes it, when this server wrote the event:
    /// the answer to the change sends those bytes instead of writing them again. Events read
    /// back from a snapshot or the database do not know it; it takes no part in equality.
    package let tripObject: Range<Int>?

    public init(revision: UInt64, name: String, data: [UInt8]) {
        self.init(revision: revision, name: name, data: data, tripObject: nil)
    }

    /// An event this server wrote, whose one trip's JSON object stands at `tripObject` in `data`.
    package init(revision: UInt64, name: String, data: [UInt8], tripObject: Range<Int>?) {
        self.revision = revision
        self.name = name
        self.data = data
        self.tripObject = tripObject
    }

    /// The JSON object of the one trip the event carries, when `tripObject` says where it is.
    package var tripJSON: ArraySlice<UInt8>? {
        tripObject.map { data[$0] }
    }

    public static func == (left: ChangeEvent, right: ChangeEvent) -> Bool {
        left.revision == right.revision && left.name == right.name && left.data == right.data
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(revision)
        hasher.combine(name)
        hasher.combine(data)
    }

    /// Tells a follower that the changes up to `revision` cannot be told one by one (the
    /// history no longer holds them): it reads the list again.
    public static func reset(revision: UInt64) -> ChangeEvent {
        ChangeEvent(revision: revision, name: resetName, data: Array(#"{"revision":\#(revision)}"#.utf8))
    }

    public static let resetName = "reset"

    public var isReset: Bool { name == Self.resetName }

    /// Whether `name` is one a change's event has (every name but `reset`).
    public static func isChangeName(_ name: String) -> Bool {
        changeNames.contains(name)
    }

    /// The name a change's event has that `utf8` spells, as the one string kept for it; nil
    /// for any other bytes.
    package static func changeName(utf8: UnsafeRawBufferPointer) -> String? {
        // Compared as bytes: a `String`'s UTF-8 view compared element by element with the
        // bytes cost a seventieth of replaying another instance's change.
        let index = changeNameBytes.firstIndex { name in
            name.count == utf8.count && name.withUnsafeBytes { memcmp($0.baseAddress!, utf8.baseAddress!, utf8.count) == 0 }
        }
        return index.map { changeNames[$0] }
    }

    private static let changeNames = ["created", "updated", "deleted", "reordered", "sorted", "favorites"]
    private static let changeNameBytes = changeNames.map { Array($0.utf8) }

    /// The event for `change`, which `apply` turned into `outcome` and left the list as
    /// `list`; nil when the change changed nothing (it is not journaled either).
    public init?(_ change: TripChange, outcome: TripChangeOutcome, list: TripList, previousRevision: UInt64) {
        guard list.revision != previousRevision else { return nil }
        // Room for a trip's object at once (~300 bytes): the writer not grown twice on the way.
        var writer = JSONWriter(reservingCapacity: Self.carriesTrips(outcome) ? 512 : 128)
        writer.appendRaw(#"{"revision":"#)
        writer.appendInteger(list.revision)
        var tripObject: Range<Int>?
        switch (change, outcome) {
        case (.add(_, let before), .added(let trips)):
            name = "created"
            writer.appendRaw(#","trips":"#)
            let start = writer.count + 1  // past the array's `[`
            trips.writeJSON(to: &writer)
            if trips.count == 1 { tripObject = start..<writer.count - 1 }
            writer.appendRaw(#","before":"#)
            if let before { writer.appendInteger(before) } else { writer.appendRaw("null") }
        case (.replace, .trip(let trip)), (.setPhoto, .trip(let trip)):
            name = "updated"
            writer.appendRaw(#","trip":"#)
            let start = writer.count
            trip.writeJSON(to: &writer)
            tripObject = start..<writer.count
        case (.delete(let ids), _):
            name = "deleted"
            writer.appendRaw(#","ids":"#)
            writer.appendIntegers(ids)
        case (.move(let difference), _):
            name = "reordered"
            writer.appendRaw(#","sources":"#)
            writer.appendIntegers(difference.sources)
            writer.appendRaw(#","destination":"#)
            writer.appendDestination(difference.destination)
        case (.sort(let key), _):
            name = "sorted"
            writer.appendRaw(#","by":"#)
            writer.appendString(key.rawValue)
            writer.appendRaw(#","order":"#)
            writer.appendIntegers(list.trips.map(\.id))
        case (.setFavorite(let id, let isFavorite), _):
            name = "favorites"
            writer.appendRaw(isFavorite ? #","added":["# : #","added":[],"removed":["#)
            writer.appendInteger(id)
            writer.appendRaw(isFavorite ? #"],"removed":[]"# : "]")
        case (.makeFavorites, .addedFavorites(let added)):
            name = "favorites"
            writer.appendRaw(#","added":"#)
            writer.appendIntegers(added)
            writer.appendRaw(#","removed":[]"#)
        case (.add, _), (.replace, _), (.makeFavorites, _), (.setPhoto, _):
            preconditionFailure("\(change) cannot have the outcome \(outcome)")
        }
        writer.appendRaw("}")
        revision = list.revision
        data = writer.bytes
        self.tripObject = tripObject
    }
}

extension JSONWriter {
    /// A reorder's destination as its JSON says it: `{"before":3}` or `"end"`.
    public mutating func appendDestination(_ destination: ReorderDifference.Destination) {
        switch destination {
        case .before(let id):
            appendRaw(#"{"before":"#)
            appendInteger(id)
            appendRaw("}")
        case .end:
            appendRaw(#""end""#)
        }
    }

    /// `[1,2,3]`
    public mutating func appendIntegers(_ values: [Int]) {
        appendRaw("[")
        for (index, value) in values.enumerated() {
            if index > 0 { appendRaw(",") }
            appendInteger(value)
        }
        appendRaw("]")
    }
}

extension TripList {
    /// Applies one change, all or nothing, and says what the change feed tells of it.
    @discardableResult
    public mutating func applyTelling(_ change: TripChange) throws(TripsError) -> (outcome: TripChangeOutcome, event: ChangeEvent?) {
        let previous = revision
        let outcome = try apply(change)
        return (outcome, ChangeEvent(change, outcome: outcome, list: self, previousRevision: previous))
    }
}

extension ChangeEvent {
    /// Whether the event of a change with `outcome` holds trips' objects (an add's, a replace's).
    private static func carriesTrips(_ outcome: TripChangeOutcome) -> Bool {
        switch outcome {
        case .added, .trip: true
        case .addedFavorites, .listChanged: false
        }
    }
}
