import Glibc

/// Owns a file descriptor and closes it exactly once, when dropped.
struct FileDescriptor: ~Copyable {
    let rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// Gives up ownership without closing.
    consuming func release() -> Int32 {
        let raw = rawValue
        discard self
        return raw
    }

    deinit { Glibc.close(rawValue) }
}
