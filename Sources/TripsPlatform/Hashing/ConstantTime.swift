/// Comparisons of secrets a client presents (a token, a session's signature) whose time
/// depends on the lengths alone, never on where the bytes first differ: a timing would
/// otherwise let a client guess a secret byte by byte.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. Every byte of the longer one is read,
    /// whatever matches.
    ///
    ///     ConstantTime.isEqual(Array("secret".utf8), Array("secreT".utf8))  // false
    package static func isEqual(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        var difference = UInt(bitPattern: a.count ^ b.count)
        var (left, right) = (a.makeIterator(), b.makeIterator())
        for _ in 0..<max(a.count, b.count) {
            difference |= UInt((left.next() ?? 0) ^ (right.next() ?? 0))
        }
        return difference == 0
    }
}
