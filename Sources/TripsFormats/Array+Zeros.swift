extension [UInt8] {
    /// Appends `count` zero bytes, copied from a page of zeros: room that a writer then fills
    /// through a pointer (`JSONWriter`, `PostgresParameters`). Appending a `repeatElement`
    /// wrote the zeros one at a time, a thousand instructions for a few hundred bytes; this is
    /// a memcpy per 4 KiB.
    package mutating func appendZeros(_ count: Int) {
        var missing = count
        while missing > 0 {
            let chunk = Swift.min(missing, zeroPage.count)
            append(contentsOf: zeroPage[..<chunk])
            missing -= chunk
        }
    }
}

private let zeroPage = [UInt8](repeating: 0, count: 4096)
