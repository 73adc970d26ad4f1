import Glibc

/// Owns a file descriptor and closes it exactly once, when dropped.
package struct FileDescriptor: ~Copyable {
    package let rawValue: Int32

    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// Gives up ownership without closing.
    package consuming func release() -> Int32 {
        let raw = rawValue
        discard self
        return raw
    }

    deinit { Glibc.close(rawValue) }
}
