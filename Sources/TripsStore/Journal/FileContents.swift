import Glibc

/// A file's bytes, read-only, lent to a reader for the length of one call
/// (`FileSystem.withContents(of:_:)`): mapped from the page cache, or read into memory.
///
/// A snapshot of a million trips is 220 MB. Read into an array, all of it is the process's
/// own memory until the list is built, on top of the list; mapped, its pages are the page
/// cache's, and a reader hands back each part once it has read it (`release`), so they stop
/// counting as the process's (they stay cached, and a later read maps them again).
package struct FileContents: @unchecked Sendable {  // read-only bytes, alive while lent
    package let bytes: UnsafeRawBufferPointer
    /// Whether `bytes` is a mapping, whose pages `release` can hand back.
    private let isMapped: Bool

    /// Bytes in memory (an array's), which `release` leaves alone.
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.init(bytes, isMapped: false)
    }

    init(_ bytes: UnsafeRawBufferPointer, isMapped: Bool) {
        self.bytes = bytes
        self.isMapped = isMapped
    }

    /// Says that `range` will not be read again: the whole pages in it leave the process's
    /// resident memory (`madvise(MADV_DONTNEED)`). Reading them again is still safe; it only
    /// costs a page fault.
    package func release(_ range: Range<Int>) {
        guard isMapped, let base = bytes.baseAddress else { return }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let address = Int(bitPattern: base)
        let first = (address + range.lowerBound + pageSize - 1) / pageSize * pageSize
        let end = (address + range.upperBound) / pageSize * pageSize
        guard end > first else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), end - first, MADV_DONTNEED)
    }
}
