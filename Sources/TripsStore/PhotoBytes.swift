import TripsDomain
import TripsFormats
import TripsPlatform

/// A photo with its bytes: what a change that sets a photo hands the store with it
/// (`ChangeRequest.photo`), and what the store hands back to be served (`TripStoring.photo`).
package struct PhotoBytes: Sendable, Hashable {
    package let photo: TripPhoto
    package let bytes: [UInt8]

    /// The photo `bytes` are (checked and cleaned by the image readers already), named by
    /// their SHA-256; nil when a side is not above zero or there are no bytes.
    package init?(format: ImageFormat, width: Int, height: Int, bytes: [UInt8]) {
        let digest = Hexadecimal.encode(SHA256.hash(bytes))
        guard let photo = TripPhoto(digest: digest, format: format, width: width, height: height, byteCount: bytes.count) else {
            return nil
        }
        self.init(photo: photo, bytes: bytes)
    }

    /// Bytes a store read back for `photo`; their length must be the photo's.
    init(photo: TripPhoto, bytes: [UInt8]) {
        self.photo = photo
        self.bytes = bytes
    }
}
