import TripsFormats

/// The whole input is a file sent as a photo, declared in turn as each format.
///
/// Properties: no crash; a declared format other than the one the signature names is a
/// `formatMismatch` naming both; when inspection succeeds, the image has the declared format
/// and sides from 1 to the limit, its bytes are no longer than the input and start with the
/// same signature, and inspecting them again gives the same format, size and bytes (removing
/// metadata is idempotent); the side limit holds exactly (the longer side passes, one less fails).
func checkImage(_ input: [UInt8]) {
    let actual = ImageFormat(signatureOf: input)
    for declared in ImageFormat.allCases {
        let image: InspectedImage
        do {
            image = try InspectedImage(inspecting: input, declared: declared)
        } catch {
            if case .formatMismatch(let named, let found) = error {
                precondition(named == declared && found == actual, "\(error) for a \(String(describing: actual)) file")
            } else {
                precondition(declared == actual, "\(error) although the file is \(String(describing: actual))")
            }
            continue
        }
        precondition(declared == actual, "a \(String(describing: actual)) file inspected as \(declared)")
        precondition(image.format == declared, "inspected as \(image.format), declared \(declared)")
        let sides = 1...InspectedImage.defaultMaxSide
        precondition(sides.contains(image.width) && sides.contains(image.height), "\(image.width) x \(image.height) accepted")
        precondition(image.bytes.count <= input.count, "\(input.count) bytes grew to \(image.bytes.count)")
        precondition(ImageFormat(signatureOf: image.bytes) == declared, "the cleaned file lost its signature")

        let again: InspectedImage
        do {
            again = try InspectedImage(inspecting: image.bytes, declared: declared)
        } catch {
            preconditionFailure("the cleaned file is refused: \(error)")
        }
        precondition(again == image, "cleaning again changed the image: \(again.width) x \(again.height), \(again.bytes.count) bytes")

        let longer = max(image.width, image.height)
        precondition((try? InspectedImage(inspecting: input, declared: declared, maxSide: longer)) == image, "refused at its own size")
        do {
            _ = try InspectedImage(inspecting: input, declared: declared, maxSide: longer - 1)
            preconditionFailure("\(image.width) x \(image.height) accepted with a limit of \(longer - 1)")
        } catch {
            precondition(error == .dimensionsOutOfRange(width: image.width, height: image.height, limit: longer - 1), "\(error)")
        }
    }
}
