import Testing
import TripsFormats

/// What the API relies on, for every format: the size read from the file's own header, the
/// declared type checked against the signature, every cut-short file refused with a typed
/// error, the side limit, and a cleaning that is idempotent and never grows a file.
@Suite struct InspectedImageTests {
    @Test(arguments: Fixture.all)
    func theSizeComesFromTheImagesOwnHeader(fixture: (name: String, format: ImageFormat, width: Int, height: Int)) throws {
        let image = try InspectedImage(inspecting: Fixture.bytes(fixture.name), declared: fixture.format)
        #expect(image.format == fixture.format)
        #expect(image.width == fixture.width)
        #expect(image.height == fixture.height)
    }

    @Test(arguments: Fixture.all)
    func aTypeOtherThanTheFilesIsAMismatchNamingBoth(fixture: (name: String, format: ImageFormat, width: Int, height: Int)) throws {
        let bytes = try Fixture.bytes(fixture.name)
        #expect(ImageFormat(signatureOf: bytes) == fixture.format)
        for declared in ImageFormat.allCases where declared != fixture.format {
            #expect(throws: ImageError.formatMismatch(declared: declared, actual: fixture.format)) {
                try InspectedImage(inspecting: bytes, declared: declared)
            }
        }
        let error = ImageError.formatMismatch(declared: .png, actual: .jpeg)
        #expect(error.description == "The body was declared as image/png but is image/jpeg.")
    }

    @Test(arguments: [
        Array("GIF89a\u{1}\0\u{1}\0".utf8), Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), [], [0xFF, 0xD8],
        Array("RIFF\u{4}\0\0\0WAVE".utf8), Array("\u{89}PNG".utf8),
    ])
    func aFileOfNoneOfTheThreeFormatsIsAMismatchWithNoActualFormat(bytes: [UInt8]) {
        #expect(ImageFormat(signatureOf: bytes) == nil)
        #expect(throws: ImageError.formatMismatch(declared: .jpeg, actual: nil)) { try InspectedImage(inspecting: bytes, declared: .jpeg) }
        #expect(
            ImageError.formatMismatch(declared: .webp, actual: nil).description
                == "The body was declared as image/webp but is not a JPEG, PNG or WebP image.")
    }

    /// Every proper prefix of every fixture: shorter than the signature it is a mismatch, longer
    /// it is unreadable (the readers need the end-of-image marker, IEND, or the whole RIFF data).
    @Test(arguments: Fixture.all)
    func aFileCutShortAtAnyByteIsRefusedWithATypedError(fixture: (name: String, format: ImageFormat, width: Int, height: Int)) throws {
        let bytes = try Fixture.bytes(fixture.name)
        let signatureLength = [ImageFormat.jpeg: 3, .png: 8, .webp: 12][fixture.format] ?? 0
        for length in 0..<bytes.count {
            do {
                _ = try InspectedImage(inspecting: Array(bytes[..<length]), declared: fixture.format)
                Issue.record("\(fixture.name) cut to \(length) bytes was accepted")
            } catch .formatMismatch {
                #expect(length < signatureLength, "\(fixture.name) cut to \(length) bytes")
            } catch .unreadableHeader {
                #expect(length >= signatureLength, "\(fixture.name) cut to \(length) bytes")
            } catch {
                Issue.record("\(fixture.name) cut to \(length) bytes: \(error)")
            }
        }
    }

    @Test func aSideUpToTheLimitIsAcceptedAndOneMoreIsRefused() throws {
        let limit = InspectedImage.defaultMaxSide
        #expect(limit == 10_000)
        let jpeg = { (width: Int, height: Int) in Build.jpeg(Build.frameHeader(width: width, height: height), Build.scan) }
        let png = { (width: UInt32, height: UInt32) in Build.png(Build.ihdr(width: width, height: height), Build.chunk("IEND", [])) }
        let webp = { (width: Int, height: Int) in Build.webp(Build.vp8l(width: width, height: height)) }

        #expect(try InspectedImage(inspecting: jpeg(limit, 1), declared: .jpeg).width == limit)
        #expect(try InspectedImage(inspecting: png(1, UInt32(limit)), declared: .png).height == limit)
        #expect(try InspectedImage(inspecting: webp(limit, limit), declared: .webp).width == limit)
        #expect(throws: ImageError.dimensionsOutOfRange(width: limit + 1, height: 1, limit: limit)) {
            try InspectedImage(inspecting: jpeg(limit + 1, 1), declared: .jpeg)
        }
        #expect(throws: ImageError.dimensionsOutOfRange(width: 1, height: 65_535, limit: limit)) {
            try InspectedImage(inspecting: jpeg(1, 65_535), declared: .jpeg)
        }
        #expect(throws: ImageError.dimensionsOutOfRange(width: 1, height: 4_000_000_000, limit: limit)) {
            try InspectedImage(inspecting: png(1, 4_000_000_000), declared: .png)
        }
        #expect(throws: ImageError.dimensionsOutOfRange(width: 16_384, height: 1, limit: limit)) {
            try InspectedImage(inspecting: webp(16_384, 1), declared: .webp)
        }
        #expect(throws: ImageError.dimensionsOutOfRange(width: 40, height: 30, limit: 39)) {
            try InspectedImage(inspecting: Fixture.bytes("progressive-gps.jpg"), declared: .jpeg, maxSide: 39)
        }
        #expect(try InspectedImage(inspecting: Fixture.bytes("progressive-gps.jpg"), declared: .jpeg, maxSide: 40).width == 40)
        #expect(
            ImageError.dimensionsOutOfRange(width: 10_001, height: 5, limit: 10_000).description
                == "The image is 10001 x 5 pixels; each side must be from 1 to 10000.")
    }

    @Test func aSideOfZeroIsRefused() {
        #expect(throws: ImageError.dimensionsOutOfRange(width: 5, height: 0, limit: 10_000)) {
            try InspectedImage(inspecting: Build.jpeg(Build.frameHeader(width: 5, height: 0), Build.scan), declared: .jpeg)
        }
        #expect(throws: ImageError.dimensionsOutOfRange(width: 0, height: 5, limit: 10_000)) {
            try InspectedImage(inspecting: Build.png(Build.ihdr(width: 0, height: 5), Build.chunk("IEND", [])), declared: .png)
        }
        #expect(throws: ImageError.dimensionsOutOfRange(width: 1, height: 1, limit: 0)) {
            try InspectedImage(inspecting: Build.webp(Build.vp8l(width: 1, height: 1)), declared: .webp, maxSide: 0)
        }
    }

    @Test(arguments: Fixture.names)
    func cleaningAgainChangesNothingAndNeverGrowsAFile(name: String) throws {
        let bytes = try Fixture.bytes(name)
        let format = try #require(ImageFormat(signatureOf: bytes))
        let image = try InspectedImage(inspecting: bytes, declared: format)
        #expect(image.bytes.count <= bytes.count)
        #expect(try InspectedImage(inspecting: image.bytes, declared: format) == image)
    }

    @Test(arguments: ["lossy.webp", "lossless.webp", "plain.png"])
    func aFileWithoutMetadataIsKeptByteForByte(name: String) throws {
        let bytes = try Fixture.bytes(name)
        let format = try #require(ImageFormat(signatureOf: bytes))
        #expect(try InspectedImage(inspecting: bytes, declared: format).bytes == bytes)
    }

    /// The files of `Sources/TripsStore/Resources/SamplePhotos/`, which the stores seed
    /// (`SampleTrips`), are what a PUT would keep as they are.
    @Test func theSampleTripsPhotosAreSmallCleanJPEGs() throws {
        let photos = try Fixture.samplePhotos()
        #expect(photos.map(\.name) == (1...6).map { "trip-\($0).jpg" })
        for photo in photos {
            let image = try InspectedImage(inspecting: photo.bytes, declared: .jpeg)
            #expect(image.bytes == photo.bytes, "\(photo.name) has metadata")
            #expect(image.width == 480 && image.height == 320, "\(photo.name) is \(image.width) x \(image.height)")
            #expect(photo.bytes.count < 16_384, "\(photo.name) has \(photo.bytes.count) bytes")
        }
    }
}
