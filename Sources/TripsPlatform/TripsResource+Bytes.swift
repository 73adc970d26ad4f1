import TripsResources

extension TripsResource {
    /// The file's bytes, copied out of the binary: read once by each `static let` that holds
    /// them.
    package var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: start, count: count))
    }
}
