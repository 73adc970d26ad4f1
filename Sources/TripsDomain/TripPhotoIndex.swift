/// The photos a list's trips refer to, each once, with how many trips refer to it: a store
/// serves a photo's bytes while a trip refers to them, and may drop them after.
///
/// Kept by `TripList` as its trips change, so that a photo is found by its digest, and the
/// photos counted, without a pass over the list.
public struct TripPhotoIndex: Sendable, Hashable {
    private struct Reference: Sendable, Hashable {
        let photo: TripPhoto
        var trips: Int
    }

    private var references: [String: Reference] = [:]
    /// The photos' bytes, each photo counted once however many trips share it.
    public private(set) var byteCount = 0

    package init() {}

    /// The photo with this digest, when a trip refers to it.
    public subscript(digest: String) -> TripPhoto? {
        references[digest]?.photo
    }

    /// How many different photos the trips refer to.
    public var count: Int { references.count }

    /// The digests of the photos the trips refer to.
    public var digests: Set<String> { Set(references.keys) }

    /// One more trip refers to `photo` (nil: none, nothing to count).
    mutating func add(_ photo: TripPhoto?) {
        guard let photo else { return }
        if var reference = references[photo.digest] {
            reference.trips += 1
            references[photo.digest] = reference
        } else {
            references[photo.digest] = Reference(photo: photo, trips: 1)
            byteCount += photo.byteCount
        }
    }

    /// One trip fewer refers to `photo`; the photo leaves the index with the last.
    mutating func remove(_ photo: TripPhoto?) {
        guard let photo, let reference = references[photo.digest] else { return }
        if reference.trips > 1 {
            references[photo.digest] = Reference(photo: reference.photo, trips: reference.trips - 1)
        } else {
            references[photo.digest] = nil
            byteCount -= reference.photo.byteCount
        }
    }
}
