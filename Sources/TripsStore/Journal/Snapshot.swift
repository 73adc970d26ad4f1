import Dispatch
import Foundation
import Synchronization
import TripsDomain
import TripsFormats

/// The whole list at one moment, the latest changes (the change feed's history), and the
/// generation of the journal that continues it.
///
/// On disk, a sequence of framed records (`RecordFrame`): a header, then one record per
/// trip in stored order, then one per change in the history, oldest first.
///
///     {"format":2,"journal":3,"revision":42,"lastIssuedID":9,"trips":2,"events":1}
///     {"version":40,"id":2,"city":"Vancouver",…,"price":1299.99,"start":"2027-03-05T00:00:00Z","notes":""}
///     {"version":42,"id":9,…,"notes":"","photo":{"digest":"9f86d0…","format":"jpeg","width":1200,"height":800,"bytes":183442}}
///     {"revision":42,"event":"created","data":{"revision":42,"trips":[…],"before":null}}
///
/// Then one record per idempotency key kept (format 3 on), oldest first:
///
///     {"key":"k-1","scope":"alice","fingerprint":"…","at":1796000000,"status":201,"fields":{…},"body":"…"}
///     {"key":"k-2","fingerprint":"…","at":1796000001,"status":200,"fields":{…},"outcome":{"listChanged":true}}
///
/// Format 1, written before the change feed, has no events; format 2 has no keys; format 3
/// keys have no scope and always a body (format 4 leaves out a body over 16 KiB, and keeps
/// what the change did instead, `StoredAnswer.Content.remade`); before format 5, no trip has
/// a photo (a trip without one still has no `photo` member); before format 6, an event's data
/// is a JSON string (`"data":"{\"revision\":42,…}"`). Format 6 writes the data's bytes as they
/// are, up to the record's closing brace (the frame says where that is): start-up copies
/// them, where undoing the string's escapes took a fifth of its instructions, a quote every
/// ten bytes or so.
///
/// `journal` is what makes compaction safe to interrupt: the snapshot covers every change
/// in journals before that generation, so an older journal left behind by a crash is
/// never replayed on top of it.
package struct Snapshot: Sendable, Equatable {
    package static let format = 6

    package var list: TripList
    /// The latest changes, oldest first; their revisions end at the list's.
    package var events: [ChangeEvent]
    /// The idempotency keys kept, oldest first.
    package var keys: [IdempotencyKeyUse]
    /// The generation of the journal whose records come after this snapshot.
    package var journal: UInt64

    /// The file's bytes.
    package var bytes: [UInt8] {
        var bytes: [UInt8] = []
        write { bytes += $0 }
        return bytes
    }

    /// Hands the file's bytes to `sink` in pieces of about `pieceSize`, as they are made: a
    /// snapshot of a long list never stands whole in memory (it would be 200 MB at a million
    /// trips, all of it newly allocated while the server runs).
    package func write<Failure: Error>(pieceSize: Int = 1 << 20, to sink: ([UInt8]) throws(Failure) -> Void) throws(Failure) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(pieceSize + 4_096)
        func append(_ payload: [UInt8]) throws(Failure) {
            RecordFrame.append(payload: payload, to: &buffer)
            guard buffer.count >= pieceSize else { return }
            try sink(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        var header = JSONWriter(reservingCapacity: 96)
        header.appendRaw(#"{"format":"#)
        header.appendInteger(Self.format)
        header.appendRaw(#","journal":"#)
        header.appendInteger(journal)
        header.appendRaw(#","revision":"#)
        header.appendInteger(list.revision)
        header.appendRaw(#","lastIssuedID":"#)
        header.appendInteger(list.lastIssuedID)
        header.appendRaw(#","trips":"#)
        header.appendInteger(list.trips.count)
        header.appendRaw(#","events":"#)
        header.appendInteger(events.count)
        header.appendRaw(#","keys":"#)
        header.appendInteger(keys.count)
        header.appendRaw("}")
        try append(header.bytes)
        for trip in list.trips {
            var writer = JSONWriter(reservingCapacity: 256)
            writer.appendRaw(#"{"version":"#)
            writer.appendInteger(list.version(of: trip.id) ?? list.revision)
            writer.appendRaw(#","id":"#)
            writer.appendInteger(trip.id)
            writer.appendRaw(",")
            writer.appendDraftMembers(trip.draft)
            if let photo = trip.photo {
                writer.appendRaw(#","photo":"#)
                writer.appendStoredPhoto(photo)
            }
            writer.appendRaw("}")
            try append(writer.bytes)
        }
        for event in events {
            var writer = JSONWriter(reservingCapacity: event.data.count + 64)
            writer.appendRaw(#"{"revision":"#)
            writer.appendInteger(event.revision)
            writer.appendRaw(#","event":"#)
            writer.appendString(event.name)
            writer.appendRaw(#","data":"#)
            writer.appendRaw(event.data)
            writer.appendRaw("}")
            try append(writer.bytes)
        }
        for use in keys {
            var writer = JSONWriter(reservingCapacity: use.byteCount + 128)
            writer.appendKeyUse(use)
            try append(writer.bytes)
        }
        if !buffer.isEmpty { try sink(buffer) }
    }

    package init(list: TripList, events: [ChangeEvent] = [], keys: [IdempotencyKeyUse] = [], journal: UInt64) {
        self.list = list
        self.events = events
        self.keys = keys
        self.journal = journal
    }

    /// Reads a snapshot file; any flaw is `.corrupt` naming `file` and the record's offset.
    package init(bytes: [UInt8], file: String) throws(StorageError) {
        self = try bytes.withUnsafeBytes { raw in
            Result { () throws(StorageError) in try Snapshot(contents: FileContents(raw), file: file) }
        }.get()
    }

    /// Reads a snapshot file lent by the file layer, handing back each part of its trip
    /// records once read (`FileContents.release`); any flaw is `.corrupt` naming `file` and
    /// the record's offset.
    package init(contents: FileContents, file: String) throws(StorageError) {
        let bytes = contents.bytes
        var offset = 0
        /// Steps over the next record's frame; answers where it starts and its payload.
        func nextPayload() throws(StorageError) -> Frame {
            let start = offset
            guard start < bytes.count else { throw .corrupt(file: file, offset: start, reason: "the snapshot ends early") }
            switch RecordFrame.read(bytes, at: start) {
            case .record(let range, let next):
                offset = next
                return (start, range)
            case .incomplete:
                throw .corrupt(file: file, offset: start, reason: "the snapshot ends inside a record")
            case .damaged(let reason):
                throw .corrupt(file: file, offset: start, reason: reason)
            }
        }
        func record<Value>(_ frame: Frame, _ read: (inout StoredObject) throws(StoredJSONError) -> Value) throws(StorageError) -> Value {
            try Self.record(frame, of: bytes, file: file, read)
        }

        let (format, journal, revision, lastIssuedID, count, eventCount, keyCount) = try record(nextPayload()) {
            (header) throws(StoredJSONError) in
            let format: Int = try header.integer("format")
            guard (1...Self.format).contains(format) else { throw StoredJSONError(reason: "unknown snapshot format \(format)") }
            let counts: (Int, UInt64, UInt64, Int, Int, Int, Int) = (
                format, try header.integer("journal"), try header.integer("revision"), try header.integer("lastIssuedID"),
                try header.integer("trips"), format < 2 ? 0 : try header.integer("events"), format < 3 ? 0 : try header.integer("keys")
            )
            guard counts.4 >= 0, counts.5 >= 0, counts.6 >= 0 else { throw StoredJSONError(reason: "a negative count") }
            // Past these, issuing the next id or counting the next revision would trap.
            guard counts.2 <= UInt64(Int64.max), (0...TripList.maximumLastIssuedID).contains(counts.3) else {
                throw StoredJSONError(reason: "a revision of \(counts.2) or a last issued id of \(counts.3) out of range")
            }
            guard UInt64(counts.5) <= counts.2 else { throw StoredJSONError(reason: "more events than revisions") }
            return counts
        }
        var frames: [Frame] = []
        frames.reserveCapacity(min(count, bytes.count / 64))
        for _ in 0..<count { frames.append(try nextPayload()) }
        var restoration = TripList.Restoration(expectedCount: count, revision: revision, lastIssuedID: lastIssuedID)
        try Self.readTrips(frames, of: contents, file: file) { (frame, trip, version) throws(StorageError) in
            guard restoration.append(trip, version: version) else {
                throw .corrupt(file: file, offset: frame.start, reason: "trip \(trip.id) appears twice")
            }
            guard trip.id >= 1, trip.id <= lastIssuedID, version <= revision else {
                throw .corrupt(file: file, offset: frame.start, reason: "trip \(trip.id) is newer than the snapshot's header says")
            }
        }
        var events: [ChangeEvent] = []
        events.reserveCapacity(min(eventCount, bytes.count / 32))
        for index in 0..<eventCount {
            let frame = try nextPayload()
            // The layout this file writes, read directly (its data is most of a long history's bytes).
            let payload = UnsafeRawBufferPointer(rebasing: bytes[frame.payload])
            let event: ChangeEvent
            if format >= 6 {
                guard let read = StoredLayoutReader.eventWithBytes(payload) else {
                    throw .corrupt(file: file, offset: frame.start, reason: "the record is not a change event")
                }
                event = read
            } else if let fast = StoredLayoutReader.event(payload) {
                event = fast
            } else {
                event = try record(frame) { (object) throws(StoredJSONError) in
                    ChangeEvent(
                        revision: try object.integer("revision"), name: try object.string("event"),
                        data: Array(try object.string("data").utf8))
                }
            }
            guard event.revision == revision - UInt64(eventCount - 1 - index) else {
                throw .corrupt(file: file, offset: frame.start, reason: "change \(event.revision) is out of place in the history")
            }
            events.append(event)
        }
        var keys: [IdempotencyKeyUse] = []
        for _ in 0..<keyCount {
            keys.append(try record(nextPayload()) { (object) throws(StoredJSONError) in try StoredObject.keyUse(object.takeRest()) })
        }
        guard offset == bytes.count else { throw .corrupt(file: file, offset: offset, reason: "bytes follow the last record") }
        self.keys = keys
        self.events = events
        self.journal = journal
        list = restoration.finish()
    }
}

extension Snapshot {
    /// Where a record starts in the file, and where its payload is.
    package typealias Frame = (start: Int, payload: Range<Int>)

    /// Reads a record's payload with `read`; any flaw is `.corrupt` at the record's offset.
    private static func record<Value>(
        _ frame: Frame, of bytes: UnsafeRawBufferPointer, file: String, _ read: (inout StoredObject) throws(StoredJSONError) -> Value
    ) throws(StorageError) -> Value {
        do {
            var object = try StoredObject(parsing: Array(bytes[frame.payload]), describing: "the record")
            let value = try read(&object)
            try object.finish()
            return value
        } catch {
            throw .corrupt(file: file, offset: frame.start, reason: error.reason)
        }
    }

    /// Reads the trip records and hands each, in file order, to `body` on the calling thread.
    ///
    /// With a million trips this is most of start-up, and each record stands alone: parts of
    /// `partSize` records are read on one thread per core, and `body` takes each part as soon
    /// as it is read, while later ones are still being read. The first flaw in file order is
    /// the one thrown. Each part's bytes are handed back once it is read.
    package static func readTrips(
        _ frames: [Frame], of contents: FileContents, file: String, partSize: Int = 20_000,
        _ body: (Frame, Trip, UInt64) throws(StorageError) -> Void
    ) throws(StorageError) {
        guard frames.count > partSize else {
            for (frame, entry) in zip(frames, try readPart(frames[...], of: contents, file: file)) {
                try body(frame, entry.trip, entry.version)
            }
            return
        }
        let parts = stride(from: 0, to: frames.count, by: partSize).map { ReadPart(range: $0..<min($0 + partSize, frames.count)) }
        let readers = min(ProcessInfo.processInfo.activeProcessorCount, parts.count)
        let isAbandoned = AbandonFlag()
        let group = DispatchGroup()
        for reader in 0..<readers {
            DispatchQueue.global().async(group: group) {
                for part in stride(from: reader, to: parts.count, by: readers).lazy.map({ parts[$0] }) {
                    guard !isAbandoned.isSet else { return }
                    part.finish(Result { () throws(StorageError) in try readPart(frames[part.range], of: contents, file: file) })
                }
            }
        }
        defer {
            isAbandoned.set()
            group.wait()
        }
        for part in parts {
            for (frame, entry) in zip(frames[part.range], try part.take().get()) { try body(frame, entry.trip, entry.version) }
        }
    }

    private static func readPart(
        _ frames: ArraySlice<Frame>, of contents: FileContents, file: String
    ) throws(StorageError) -> [(trip: Trip, version: UInt64)] {
        var entries: [(trip: Trip, version: UInt64)] = []
        entries.reserveCapacity(frames.count)
        var strings = RecentStrings()
        for frame in frames { entries.append(try readTrip(frame, of: contents.bytes, file: file, strings: &strings)) }
        if let first = frames.first, let last = frames.last { contents.release(first.start..<last.payload.upperBound) }
        return entries
    }

    /// A part of the trip records, read on one thread and taken on another.
    private final class ReadPart: Sendable {
        let range: Range<Int>
        private let isRead = DispatchSemaphore(value: 0)
        private let result = Mutex<Result<[(trip: Trip, version: UInt64)], StorageError>?>(nil)

        init(range: Range<Int>) { self.range = range }

        func finish(_ result: Result<[(trip: Trip, version: UInt64)], StorageError>) {
            self.result.withLock { $0 = result }
            isRead.signal()
        }

        /// Waits until the part is read, and takes what it holds.
        func take() -> Result<[(trip: Trip, version: UInt64)], StorageError> {
            isRead.wait()
            guard let result = result.withLock({ $0.take() }) else { preconditionFailure("a part was taken twice") }
            return result
        }
    }

    /// Tells the reading threads that a flaw was found, or every part taken: no more to read.
    private final class AbandonFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    /// One trip record: the layout this file writes read directly, anything else by the
    /// general reader.
    private static func readTrip(
        _ frame: Frame, of bytes: UnsafeRawBufferPointer, file: String, strings: inout RecentStrings
    ) throws(StorageError) -> (trip: Trip, version: UInt64) {
        let fast = StoredLayoutReader.trip(UnsafeRawBufferPointer(rebasing: bytes[frame.payload]), strings: &strings)
        if let fast { return fast }
        return try record(frame, of: bytes, file: file) { (object) throws(StoredJSONError) in
            let version: UInt64 = try object.integer("version")
            let id: Int = try object.integer("id")
            let draft = try object.draftMembers()
            return (trip: Trip(id: id, draft: draft, photo: object.has("photo") ? try object.photo("photo") : nil), version: version)
        }
    }
}
