import Foundation
import Synchronization
import Testing
import TripsDomain
import TripsFormats
import TripsPlatform

@testable import TripsServer
@testable import TripsStore

/// A photo of `count` bytes made from `seed`: any bytes do, the store does not read images.
func examplePhotoBytes(_ seed: UInt8, count: Int = 300, format: ImageFormat = .jpeg) -> PhotoBytes {
    PhotoBytes(format: format, width: 4, height: 3, bytes: (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ seed })!
}

/// The sample trips' photos but those of `trips`: what a store seeded with the samples keeps
/// of them once those trips' photos changed.
func samplePhotos(but trips: Trip.ID...) -> (digests: [String], count: Int, bytes: Int) {
    let photos = SampleTrips.list.trips.filter { !trips.contains($0.id) }.compactMap(\.photo)
    return (photos.map(\.digest), photos.count, photos.map(\.byteCount).reduce(0, +))
}

extension TripStoring {
    /// Sets (or clears) a trip's photo, bringing its bytes, and waits until it is durable.
    func photoResult(_ id: Trip.ID, _ photo: PhotoBytes?) async -> Result<Mutation, MutationError> {
        await withCheckedContinuation { continuation in
            mutate({ _ in .setPhoto(id, photo?.photo) }, photo: photo) { continuation.resume(returning: $0) }
        }
    }

    /// Sets (or clears) a trip's photo and throws when that failed.
    @discardableResult
    func setPhoto(_ id: Trip.ID, _ photo: PhotoBytes?) async throws(MutationError) -> Mutation {
        try await photoResult(id, photo).get()
    }

    /// Makes `change` and waits until it is durable.
    func changeResult(_ change: TripChange) async -> Result<Mutation, MutationError> {
        await withCheckedContinuation { continuation in
            mutate({ _ in change }) { continuation.resume(returning: $0) }
        }
    }

    /// Makes `change` and throws when that failed.
    @discardableResult
    func make(_ change: TripChange) async throws(MutationError) -> Mutation {
        try await changeResult(change).get()
    }
}

/// Every store keeps photos: in memory, in a data folder, and in PostgreSQL when a test
/// cluster runs.
enum PhotoStore: String, Sendable, CustomTestStringConvertible {
    case memory, journal, postgres

    static var all: [PhotoStore] {
        LiveDatabase.isConfigured(LiveDatabase.socketURL) ? [.memory, .journal, .postgres] : [.memory, .journal]
    }

    var testDescription: String { rawValue }

    /// Runs `body` on a new store of this kind holding the sample trips (or none), and closes it after.
    func with(samples: Bool = true, _ body: (any TripStoring) async throws -> Void) async throws {
        switch self {
        case .memory, .postgres:
            let (store, cleanUp) = try await (self == .memory ? TestStore.memory : TestStore.postgres).make(samples: samples)
            defer {
                if let cleanUp { cleanUp() } else { store.close() }
            }
            try await body(store)
        case .journal:
            try await withStorageFolder { folder in
                let store = try TripStore.open(folder, samples: samples)
                defer { store.close() }
                try await body(store)
            }
        }
    }
}

@Suite struct StoragePhotoTests {
    @Test(arguments: PhotoStore.all)
    func aPhotoIsSetReplacedAndClearedAsAChangeOfItsTrip(kind: PhotoStore) async throws {
        try await kind.with { (store) async throws in
            let events = Mutex<[ChangeEvent]>([])
            store.setChangeListener { event in events.withLock { $0.append(event) } }
            let others = samplePhotos(but: 2)  // the other samples' photos stay as they are
            let first = examplePhotoBytes(1)
            let set = try await store.setPhoto(2, first)
            #expect(set.revision == 1 && set.tripVersion == 1)
            #expect(set.outcome == .trip(try #require(store.list[2])))
            #expect(store.list[2]?.photo == first.photo)
            #expect(try store.photo(digest: first.photo.digest) == first)
            #expect(store.statistics.store.photos == others.count + 1 && store.statistics.store.photoBytes == others.bytes + 300)

            let second = examplePhotoBytes(2, count: 500, format: .png)
            #expect(try await store.setPhoto(2, second).tripVersion == 2)
            #expect(try store.photo(digest: first.photo.digest) == nil)  // no trip refers to it
            #expect(try store.photo(digest: second.photo.digest) == second)
            // A replace and a favorite keep the photo.
            try await store.make(.replace(2, storageDraft("Victoria")))
            try await store.make(.setFavorite(2, true))
            #expect(store.list[2]?.photo == second.photo && store.list[2]?.city == "Victoria")

            let cleared = try await store.setPhoto(2, nil)
            #expect(cleared.revision == 5 && store.list[2]?.photo == nil)
            #expect(try store.photo(digest: second.photo.digest) == nil)
            #expect(store.statistics.store.photos == others.count && store.statistics.store.photoBytes == others.bytes)
            #expect(events.withLock { $0.map(\.name) } == ["updated", "updated", "updated", "favorites", "updated"])
        }
    }

    @Test(arguments: PhotoStore.all)
    func twoTripsWithTheSamePhotoShareItsBytes(kind: PhotoStore) async throws {
        try await kind.with { (store) async throws in
            let others = samplePhotos(but: 1, 5)
            let photo = examplePhotoBytes(3)
            try await store.setPhoto(1, photo)
            try await store.setPhoto(5, photo)
            #expect(store.statistics.store.photos == others.count + 1 && store.statistics.store.photoBytes == others.bytes + 300)
            try await store.make(.delete([1]))
            #expect(try store.photo(digest: photo.photo.digest) == photo)  // trip 5 still has it
            try await store.setPhoto(5, nil)
            #expect(try store.photo(digest: photo.photo.digest) == nil)
        }
    }

    @Test(arguments: PhotoStore.all)
    func aPhotoWithoutItsBytesIsRefusedAndChangesNothing(kind: PhotoStore) async throws {
        try await kind.with { (store) async throws in
            let photo = examplePhotoBytes(4)
            let without = await store.changeResult(.setPhoto(2, photo.photo))
            #expect(without.storageError == .photoBytesMissing(digest: photo.photo.digest))
            let mismatched = await withCheckedContinuation { continuation in
                store.mutate({ _ in .setPhoto(2, photo.photo) }, photo: examplePhotoBytes(5)) { continuation.resume(returning: $0) }
            }
            #expect(mismatched.storageError == .photoBytesMissing(digest: photo.photo.digest))
            #expect(store.list.revision == 0 && store.list[2]?.photo == SampleTrips.list[2]?.photo)
            #expect(try store.photo(digest: photo.photo.digest) == nil)
            // Clearing needs no bytes.
            #expect(try await store.setPhoto(2, nil).revision == 1)
            #expect(store.list[2]?.photo == nil)
        }
    }

    @Test func photoBytesAreNamedByTheirSHA256() throws {
        let photo = try #require(PhotoBytes(format: .png, width: 2, height: 1, bytes: Array("abc".utf8)))
        #expect(photo.photo.digest == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(photo.photo.byteCount == 3 && photo.photo.url.hasSuffix(".png"))
        #expect(PhotoBytes(format: .png, width: 0, height: 1, bytes: [1]) == nil)
        #expect(PhotoBytes(format: .png, width: 1, height: 1, bytes: []) == nil)
    }

    @Test func aJournalRecordAndASnapshotKeepThePhoto() throws {
        let photo = examplePhotoBytes(6).photo
        for change in [TripChange.setPhoto(2, photo), .setPhoto(2, nil)] {
            let record = JournalRecord(revision: 9, change: change)
            #expect(try JournalRecord(payload: record.payload) == record)
        }
        var list = TripList.samples
        try list.setPhoto(2, photo)
        try list.setPhoto(4, photo)
        let snapshot = Snapshot(list: list, journal: 3)
        let read = try Snapshot(bytes: snapshot.bytes, file: "snapshot")
        #expect(read == snapshot && read.list[2]?.photo == photo && read.list.photos == list.photos)
        // The general reader reads what the fast one does.
        var writer = JSONWriter()
        writer.appendRaw(#"{"id":2,"version":1,"#)  // members out of the fast reader's order
        writer.appendDraftMembers(list[2]!.draft)
        writer.appendRaw(#","photo":"#)
        writer.appendStoredPhoto(photo)
        writer.appendRaw("}")
        var strings = RecentStrings()
        #expect(writer.bytes.withUnsafeBytes { StoredLayoutReader.trip($0, strings: &strings) } == nil)
        var payload: [UInt8] = []
        RecordFrame.append(payload: writer.bytes, to: &payload)
        var bytes = snapshot.bytes
        let frames = Self.frames(of: bytes)
        try #require(frames.count > 2)
        bytes.replaceSubrange(frames[2], with: payload)  // after the header and trip 1
        #expect(try Snapshot(bytes: bytes, file: "snapshot").list[2]?.photo == photo)
    }

    @Test func replayingTheJournalRebuildsThePhotos() throws {
        let photo = examplePhotoBytes(7).photo
        var bytes: [UInt8] = []
        for (revision, change) in [TripChange.setPhoto(2, photo), .setPhoto(3, photo), .setPhoto(2, nil)].enumerated() {
            RecordFrame.append(payload: JournalRecord(revision: UInt64(revision + 1), change: change).payload, to: &bytes)
        }
        let replay = try JournalReplay(bytes, file: "journal", onto: TripList.samples, history: ChangeHistory(capacity: 10, revision: 0))
        #expect(replay.list[2]?.photo == nil && replay.list[3]?.photo == photo && replay.list.photos.count == 1)
        #expect(replay.history.all.map(\.name) == ["updated", "updated", "updated"])
    }

    @Test func thePhotoCacheKeepsThoseReadLatestWithinItsCapacity() {
        let cache = PhotoCache(capacity: 10)
        cache.keep([1, 2, 3, 4], for: "a")
        cache.keep([1, 2, 3, 4], for: "b")
        #expect(cache.bytes("a") == [1, 2, 3, 4])  // now read after b
        cache.keep([5, 6, 7, 8], for: "c")  // 12 bytes: b, read longest ago, goes
        #expect(cache.bytes("b") == nil && cache.bytes("a") != nil && cache.bytes("c") == [5, 6, 7, 8])
        cache.keep(Array(repeating: 0, count: 11), for: "d")  // more than the whole capacity: not kept, nothing dropped
        #expect(cache.bytes("d") == nil && cache.bytes("a") != nil && cache.bytes("c") != nil)
        cache.keep([9, 9], for: "c")  // kept again: counted once
        cache.keep([1, 2, 3, 4], for: "e")
        #expect(cache.bytes("a") != nil && cache.bytes("c") == [9, 9] && cache.bytes("e") != nil)
    }

    @Test func hexadecimalTextReadsBackAsItsBytes() {
        let bytes: [UInt8] = [0x00, 0x9f, 0xff, 0x10]
        #expect(Hexadecimal.encode(bytes) == "009fff10")
        #expect(Hexadecimal.decode("009fff10") == bytes && Hexadecimal.decode("009FFF10") == bytes)
        for bad in ["0", "0g", "zz", "00 "] { #expect(Hexadecimal.decode(bad) == nil, "\(bad)") }
        #expect(Hexadecimal.decode("") == [])
    }

    /// Where each framed record of `bytes` is.
    private static func frames(of bytes: [UInt8]) -> [Range<Int>] {
        var frames: [Range<Int>] = []
        var offset = 0
        while case .record(_, let next) = bytes.withUnsafeBytes({ RecordFrame.read($0, at: offset) }) {
            frames.append(offset..<next)
            offset = next
        }
        return frames
    }
}
