import TripsDomain
import TripsFormats
import TripsPlatform
import TripsResources

/// The sample trips as every store starts with them (unless told not to): `TripList.samples`
/// with each trip's photo set, and those photos' bytes, so that a first start shows the photos.
///
/// The photos are the project's own (`Resources/SamplePhotos`, CC0), compiled into the binary
/// (TripsResources): no file is looked up at run time. They are checked by the
/// same inspection as a photo a client puts, and hashed, once, on first use.
package enum SampleTrips {
    /// `TripList.samples` with every trip's photo: the same ids, order, revision and versions,
    /// as if the trips had always had them (no change records the photos).
    package static let list: TripList = {
        let samples = TripList.samples
        let entries = samples.trips.map { trip in
            var trip = trip
            trip.photo = photoByTrip[trip.id]?.photo
            return (trip: trip, version: samples.version(of: trip.id) ?? samples.revision)
        }
        return TripList(restoring: entries, revision: samples.revision, lastIssuedID: samples.lastIssuedID)
    }()

    /// The photos `list` shows, with their bytes, in the trips' order: what a store keeps
    /// before the list that names them.
    package static let photos: [PhotoBytes] = photoByTrip.sorted { $0.key < $1.key }.map(\.value)

    /// Each sample trip's photo, by the trip's id. A file the inspection refuses leaves its
    /// trip without a photo rather than stopping the server; a test makes sure none is refused.
    private static let photoByTrip: [Trip.ID: PhotoBytes] = Dictionary(
        uniqueKeysWithValues: TripList.samples.trips.map { ($0.id, trips_resource_sample_photo(Int32($0.id)).bytes) }
    ).compactMapValues { file in
        guard let image = try? InspectedImage(inspecting: file, declared: .jpeg) else { return nil }
        return PhotoBytes(format: image.format, width: image.width, height: image.height, bytes: image.bytes)
    }
}
