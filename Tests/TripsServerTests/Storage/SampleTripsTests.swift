import Foundation
import Testing
import TripsDomain
import TripsFormats

@testable import TripsServer
@testable import TripsStore

/// Every store seeds the sample trips with their photos, bytes and all, from its first start.
@Suite struct SampleTripsTests {
    /// The committed photo file of sample trip `id`, read from the source folder.
    private static func committedFile(_ id: Trip.ID) throws -> [UInt8] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Sources")
        let path = sources.appendingPathComponent("TripsStore/Resources/SamplePhotos/trip-\(id).jpg").standardized.path
        return try #require(FileManager.default.contents(atPath: path).map(Array.init), "no file at \(path)")
    }

    @Test func eachSampleTripHasItsOwnPhotoAndNothingElseChanged() throws {
        let samples = TripList.samples
        let list = SampleTrips.list
        #expect(list.revision == samples.revision && list.lastIssuedID == samples.lastIssuedID)
        #expect(list.trips.map(\.id) == samples.trips.map(\.id))
        #expect(SampleTrips.photos.count == samples.count && list.photos.count == samples.count)
        for (trip, photo) in zip(list.trips, SampleTrips.photos) {
            #expect(trip.photo == photo.photo, "trip \(trip.id)")
            var without = trip
            without.photo = nil
            #expect(without == samples[trip.id] && list.version(of: trip.id) == samples.version(of: trip.id))
            #expect(photo.photo.format == .jpeg && photo.photo.width == 480 && photo.photo.height == 320)
            #expect(photo.bytes == (try Self.committedFile(trip.id)), "trip \(trip.id)'s photo is not its file")
        }
    }

    @Test(arguments: PhotoStore.all)
    func aNewStoreWithTheSamplesServesTheirPhotos(kind: PhotoStore) async throws {
        try await kind.with { (store) async throws in
            #expect(store.list == SampleTrips.list)
            for photo in SampleTrips.photos {
                #expect(try store.photo(digest: photo.photo.digest) == photo)
            }
            let all = samplePhotos()
            #expect(store.statistics.store.photos == all.count && store.statistics.store.photoBytes == all.bytes)
        }
    }

    @Test(arguments: PhotoStore.all)
    func aNewStoreWithoutTheSamplesHasNoPhotos(kind: PhotoStore) async throws {
        try await kind.with(samples: false) { (store) async throws in
            #expect(store.list.trips.isEmpty && store.list.photos.count == 0)
            #expect(try store.photo(digest: SampleTrips.photos[0].photo.digest) == nil)
            #expect(store.statistics.store.photos == 0)
        }
    }

    @Test func aNewDataFolderKeepsTheSamplesPhotosAsFilesAndReopensWithThem() async throws {
        try await withStorageFolder { folder in
            try TripStore.open(folder, samples: true).close()
            let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/photos").sorted()
            #expect(names == samplePhotos().digests.sorted())
            for photo in SampleTrips.photos {
                #expect(try contents(of: folder + "/photos/" + photo.photo.digest) == photo.bytes)
            }
            let reopened = try TripStore.open(folder, samples: false)  // the folder says what it holds now
            defer { reopened.close() }
            #expect(reopened.list == SampleTrips.list)
            for photo in SampleTrips.photos {
                #expect(try reopened.photo(digest: photo.photo.digest) == photo)
            }
        }
        try await withStorageFolder { folder in
            try TripStore.open(folder, samples: false).close()
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/photos").isEmpty)
        }
    }

    /// Stops the file operations at every step of a new folder's first start in turn, then
    /// starts again: the photos' files are durable before the snapshot that names them, so the
    /// folder always starts, with every sample trip's photo.
    @Test func aCrashAtAnyStepOfTheFirstStartLeavesAFolderThatStartsWithEveryPhoto() async throws {
        let steps = try await withStorageFolder { folder in
            let files = FaultyFileSystem()
            try TripStore.open(folder, samples: true, fileSystem: files).close()
            return files.operations.count
        }
        for step in 0..<steps {
            try await withStorageFolder { folder in
                let files = FaultyFileSystem()
                files.crash(afterOperations: step)
                if let store = try? TripStore.open(folder, samples: true, fileSystem: files) { store.close() }
                let reopened = try TripStore.open(folder, samples: true)
                defer { reopened.close() }
                #expect(reopened.list == SampleTrips.list, "step \(step)")
                for photo in SampleTrips.photos {
                    #expect(try reopened.photo(digest: photo.photo.digest) == photo, "step \(step)")
                }
            }
        }
    }
}
