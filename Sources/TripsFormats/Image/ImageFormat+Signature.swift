extension ImageFormat {
    /// The format a file's first bytes announce, whatever its `Content-Type` says: JPEG's
    /// start-of-image marker and the first byte of the next marker (`FF D8 FF`), PNG's
    /// eight-byte signature, or a RIFF container of form type `WEBP`. Nil for anything else.
    package init?(signatureOf bytes: [UInt8]) {
        if bytes.matches([0xFF, 0xD8, 0xFF], at: 0) {
            self = .jpeg
        } else if bytes.matches(PNGReader.signature, at: 0) {
            self = .png
        } else if bytes.matches("RIFF".utf8, at: 0), bytes.matches("WEBP".utf8, at: 8) {
            self = .webp
        } else {
            return nil
        }
    }
}
